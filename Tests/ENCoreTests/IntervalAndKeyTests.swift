import Testing
@testable import ENCore

@Suite struct IntervalAndKeyTests {
    @Test func intervalArithmetic() {
        #expect(ENIntervalNumber(unixSeconds: 599)?.value == 0)
        #expect(ENIntervalNumber(unixSeconds: 600)?.value == 1)
        #expect(ENIntervalNumber(unixSeconds: -1) == nil)
        #expect(ENIntervalNumber(unixSeconds: (Int64(UInt32.max) + 1) * 600) == nil)
        let n = ENIntervalNumber(unixSeconds: 1585785600 + 3 * 3600 + 59)!
        #expect(n.value == 2642976 + 18)
        #expect(n.dayStart.value == 2642976)
        #expect(n.unixSeconds == 1585785600 + 3 * 3600)
        #expect(ENIntervalNumber(5).advanced(by: -6) == nil)
        #expect(ENIntervalNumber(5).distance(to: ENIntervalNumber(2)) == -3)
    }

    @Test func generatedKeysStartAtUTCMidnightAndDiffer() {
        let noon = ENIntervalNumber(unixSeconds: 1_700_000_000)!
        var keys = Set<Bytes16>()
        for _ in 0..<100 {
            let tek = TemporaryExposureKey.generate(for: noon)
            #expect(tek.rollingStart.value % 144 == 0)
            #expect(tek.rollingStart <= noon && noon.value - tek.rollingStart.value < 144)
            #expect(tek.rollingPeriod == 144)
            #expect(tek.isValid(at: noon))
            #expect(!tek.isValid(at: tek.rollingStart.advanced(by: 144)!))
            keys.insert(tek.keyData)
        }
        #expect(keys.count == 100)
    }

    @Test func keyDescriptionNeverShowsTheKey() {
        let tek = TemporaryExposureKey(keyData: Bytes16(hex: "75c734c6dd1a782de7a965da5eb93125")!,
                                       rollingStart: ENIntervalNumber(2642976))
        #expect(!"\(tek)".contains("75c7"))
        #expect("\(tek)".contains("redacted"))
    }

    @Test func metadataBytes() {
        #expect(Metadata(txPower: -12).plaintext.hex == "40f40000")
        #expect(Metadata(AssociatedEncryptedMetadata(hex: "40f40000")!).txPower == -12)
        #expect(Metadata(txPower: 8).majorVersion == 1)
    }

    @Test func hex() {
        #expect(Hex.decode("0aFf") == [0x0a, 0xff])
        #expect(Hex.decode("abc") == nil)
        #expect(Hex.decode("zz") == nil)
        #expect(Bytes16(hex: "00") == nil)
        #expect(Hex.encode([0, 255]) == "00ff")
    }
}
