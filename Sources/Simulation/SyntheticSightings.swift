import Agent
import ENCore

/// Made-up sightings whose content follows from a number alone, for the benchmark, the tests and the
/// crash-test writer: whoever reads sighting number n back can check it without a copy of what was written.
package enum SyntheticSightings {
    package static func sighting(number: Int, firstSeen: Int64) -> Sighting {
        var mixer = SplitMix64(seed: UInt64(bitPattern: Int64(number)))
        var rpi = Bytes16.zero
        rpi.withUnsafeMutableBytes { raw in
            raw.storeBytes(of: mixer.next(), toByteOffset: 0, as: UInt64.self)
            raw.storeBytes(of: mixer.next(), toByteOffset: 8, as: UInt64.self)
        }
        let bits = mixer.next()
        let rssiMax = -30 - Int8(bits & 63)
        return Sighting(
            rpi: rpi, aem: AssociatedEncryptedMetadata(word: UInt32(truncatingIfNeeded: bits >> 32)),
            firstSeen: firstSeen, rssiMax: rssiMax, rssiMean: rssiMax - Int8(bits >> 8 & 15),
            reports: 1 + Int(bits >> 12 & 31), secondsSincePreviousScan: 210 + Int(bits >> 20 & 127))
    }
}
