import Testing
@testable import ENCore

/// Metadata v1.0 and v1.1 in Google's bit layout (`BluetoothMetadata`): version byte bits 7:6 major, 5:4 minor,
/// 3:2 the TX power's calibration confidence (v1.1 only), 1:0 reserved.
@Suite struct MetadataVersionTests {
    @Test func versionOneOneCarriesTheConfidenceInBitsThreeAndTwo() {
        let bytes = CalibrationConfidence.allCases.map { Metadata(txPower: -12, calibrationConfidence: $0).plaintext.hex }
        #expect(bytes == ["50f40000", "54f40000", "58f40000", "5cf40000"])
        #expect(CalibrationConfidence.allCases.map(\.rawValue) == [0, 1, 2, 3])
        #expect(CalibrationConfidence.allCases.map(\.description) == ["lowest", "low", "medium", "high"])
    }

    @Test(arguments: [
        ("40080000", 0, 8, CalibrationConfidence.lowest),   // the official vectors' metadata
        ("50f40000", 1, -12, .lowest),
        ("54000000", 1, 0, .low),
        ("58ec0000", 1, -20, .medium),
        ("5f140000", 1, 20, .high),                         // reserved bits 1:0 set: ignored
        ("4c080000", 0, 8, .lowest),                        // bits 3:2 are reserved in v1.0: not a confidence
    ])
    func decodesBothVersions(hex: String, minor: UInt8, txPower: Int8, confidence: CalibrationConfidence) throws {
        let metadata = Metadata(try #require(AssociatedEncryptedMetadata(hex: hex)))
        #expect(metadata.majorVersion == 1 && metadata.minorVersion == minor)
        #expect(metadata.txPower == txPower)
        #expect(metadata.calibrationConfidence == confidence)
    }

    /// What a receiver does with a beacon it heard: decrypt the AEM with the key's AEMK and the RPI, and read the
    /// metadata. With the official vector's key, a v1.1 sender's confidence survives the round trip, and the
    /// vector's own v1.0 metadata still gives its published AEM.
    @Test func aReceiverReadsTheSendersConfidence() throws {
        let schedule = try KeySchedule()
        let tek = try #require(Bytes16(hex: "75c734c6dd1a782de7a965da5eb93125"))
        let aemk = schedule.aemk(tek)
        let rpi = schedule.rpi(rpik: schedule.rpik(tek), interval: ENIntervalNumber(2_642_976))
        #expect(schedule.aem(aemk: aemk, rpi: rpi, Metadata(txPower: 8).plaintext).hex == "72033874")
        for confidence in CalibrationConfidence.allCases {
            let heard = schedule.aem(aemk: aemk, rpi: rpi, Metadata(txPower: 8, calibrationConfidence: confidence).plaintext)
            let read = Metadata(schedule.aem(aemk: aemk, rpi: rpi, heard))
            #expect(read.minorVersion == 1 && read.calibrationConfidence == confidence && read.txPower == 8)
        }
    }
}
