import Testing
@testable import ENCore

/// The receiver's RSSI correction (`MatchingRules.rssiCorrection`, a board's `radio.rssi_correction`) as a phone
/// applies its model's: attenuation = the sender's TX power − (RSSI + correction), so every dB of correction is
/// one dB less attenuation, on the typical and the minimum figure alike, and the floor at 0 still holds.
extension ExposureDetectionTests {
    @Test(arguments: [-9, 3, 7, 25])
    func aCorrectionOfNDecibelsLowersTheAttenuationByN(correction: Int) throws {
        let met = key()
        let planted = sightings(of: met, scans: 3)
        var rules = MatchingRules()
        rules.rssiCorrection = correction
        let plain = detection(planted)
        let corrected = ExposureDetection(matcher: KeyMatcher(sightings: planted, now: Self.now, rules: rules,
                                                              schedule: schedule))
        file(plain, "a.zip", [met])
        file(corrected, "a.zip", [met])
        let before = try #require(plain.matched.first).matchedKey.sightings
        let after = try #require(corrected.matched.first).matchedKey.sightings
        #expect(before.count == 3 && after.count == 3)
        for (b, a) in zip(before, after) {
            #expect(Int(a.attenuation) == Int(b.attenuation) - correction)
            #expect(Int(a.minimumAttenuation) == Int(b.minimumAttenuation) - correction)
        }
    }

    /// A correction larger than the attenuation leaves it at 0, never a negative figure wrapped into a UInt8.
    @Test func aCorrectionBeyondTheAttenuationFloorsAtZero() {
        let heard = sightings(of: key(), scans: 1)[0]
        #expect(heard.attenuation(txPower: -20, rssiCorrection: 40) == 0, "−20 − (−52 + 40) is −8 dB")
        #expect(heard.minimumAttenuation(txPower: 8, rssiCorrection: -40) == heard.minimumAttenuation(txPower: 8) + 40)
    }
}
