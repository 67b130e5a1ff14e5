import Testing
@testable import ENCore

@Suite struct ScanAggregatorTests {
    let a = Bytes16(hex: "000102030405060708090a0b0c0d0e0f")!
    let b = Bytes16(hex: "f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff")!
    let aem = AssociatedEncryptedMetadata(hex: "01020304")!

    @Test func oneSightingPerRPIWithMaxMeanAndCount() {
        var agg = ScanAggregator()
        agg.add(rpi: a, aem: aem, rssi: -60, at: 1000)
        agg.add(rpi: b, aem: aem, rssi: -80, at: 1001)
        agg.add(rpi: a, aem: aem, rssi: -50, at: 1002)
        agg.add(rpi: a, aem: aem, rssi: -55, at: 1003)
        agg.add(rpi: a, aem: aem, rssi: nil, at: 1003)
        let s = agg.finish(secondsSincePreviousScan: 240)
        #expect(s.count == 2)
        #expect(s[0].rpi == a && s[0].firstSeen == 1000 && s[0].signal == SignalStrength(max: -50, mean: -55) && s[0].reports == 4)
        #expect(s[1].rpi == b && s[1].signal?.max == -80 && s[1].reports == 1 && s[1].secondsSincePreviousScan == 240)
        #expect(agg.isEmpty, "finish starts the next scan empty")
    }

    @Test func meanRoundsHalfAwayFromZeroAndNoRSSIIsNotAvailable() {
        var agg = ScanAggregator()
        agg.add(rpi: a, aem: aem, rssi: -60, at: 0)
        agg.add(rpi: a, aem: aem, rssi: -61, at: 0)  // mean -60.5 → -61
        agg.add(rpi: b, aem: aem, rssi: nil, at: 0)
        let s = agg.finish(secondsSincePreviousScan: 0)
        #expect(s[0].signal?.mean == -61)
        #expect(s[1].signal == nil, "no report carried an RSSI")
    }

    @Test func reportsAreCountedAndDistinctRPIsAreBounded() {
        var agg = ScanAggregator(maximumDistinct: 2)
        for _ in 0..<300 { agg.add(rpi: a, aem: aem, rssi: -70, at: 0) }
        agg.add(rpi: b, aem: aem, rssi: -70, at: 0)
        agg.add(rpi: Bytes16.zero, aem: aem, rssi: -70, at: 0)
        #expect(agg.dropped == 1)
        let s = agg.finish(secondsSincePreviousScan: 0)
        #expect(s.count == 2 && s[0].reports == 300)
    }

    /// A flood's count is of beacons: a phone is reported many times a scan, and each report past the cap
    /// counted as one more beacon told staff of a flood several times its size.
    @Test func beaconsOverTheCapAreCountedOncePerBeacon() {
        var agg = ScanAggregator(maximumDistinct: 256)
        var random = SplitMix64(seed: 7)
        let beacons = (0..<10_000).map { _ in Bytes16((0..<16).map { _ in UInt8.random(in: 0...255, using: &random) })! }
        let aem = AssociatedEncryptedMetadata(word: 0)
        for _ in 0..<2 {
            for rpi in beacons { agg.add(rpi: rpi, aem: aem, rssi: -60, at: 0) }
        }
        #expect(agg.dropped == 10_000 - 256)
        #expect(agg.finish(secondsSincePreviousScan: 0).count == 256)
        #expect(agg.dropped == 0, "each scan counts its own")
    }
}
