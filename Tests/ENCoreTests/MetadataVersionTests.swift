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

    /// Matched sightings keep their sender's confidence, read from each one's metadata (v1.0 as lowest); the key
    /// and its exposure report the least trusted of them.
    @Test func matchedExposuresKeepTheSendersConfidence() throws {
        let schedule = try KeySchedule()
        let day = ENIntervalNumber(2_666_592)
        let now = Int64(day.value) * 600 + 2 * 86_400
        var g = SystemRandomNumberGenerator()
        func heard(_ key: DiagnosisKey, _ metadata: [Metadata]) -> [Sighting] {
            let rpik = schedule.rpik(key.tek.keyData), aemk = schedule.aemk(key.tek.keyData)
            return metadata.enumerated().map { i, metadata in
                let n = ENIntervalNumber(day.value + 60 + UInt32(i))
                let rpi = schedule.rpi(rpik: rpik, interval: n)
                return Sighting(rpi: rpi, aem: schedule.aem(aemk: aemk, rpi: rpi, metadata.plaintext), firstSeen: n.unixSeconds,
                                signal: SignalStrength(max: -50, mean: -52), reports: 2, secondsSincePreviousScan: 300)
            }
        }
        let badge = DiagnosisKey(tek: TemporaryExposureKey.generate(for: day, using: &g))
        let phone = DiagnosisKey(tek: TemporaryExposureKey.generate(for: day, using: &g))
        let mixed = DiagnosisKey(tek: TemporaryExposureKey.generate(for: day, using: &g))
        let sightings = heard(badge, Array(repeating: Metadata(txPower: 8, calibrationConfidence: .high), count: 3))
            + heard(phone, [Metadata(txPower: 8), Metadata(txPower: 8)])
            + heard(mixed, [Metadata(txPower: 8, calibrationConfidence: .high), Metadata(txPower: 8, calibrationConfidence: .low)])
        let detection = ExposureDetection(matcher: KeyMatcher(sightings: sightings, now: now, schedule: schedule))
        detection.beginFile("a.zip")
        [badge, phone, mixed].forEach(detection.consider)
        detection.endFile()
        #expect(detection.matched.map { $0.matchedKey.sightings.map { $0.calibrationConfidence } }
                == [[.high, .high, .high], [.lowest, .lowest], [.high, .low]])
        #expect(detection.matched.map { $0.matchedKey.calibrationConfidence } == [.high, .lowest, .low])
        // v2 windows carry it too, as Google's and Apple's do: the confidence of the sighting that opened the window
        // (`KeyExposureEvaluator.findExposureWindows` sets it when it starts a window), so the mixed sender's one
        // window, opened by its .high sighting, is .high while its key and exposure report the least, .low.
        #expect(detection.matched.map { m in
            RiskScoringV2.windows(of: m.matchedKey, configuration: RiskDefaults.v2).map { $0.calibrationConfidence }
        } == [[.high], [.lowest], [.high]])
        let exposures = detection.exposures(v1: RiskDefaults.v1, v2: RiskDefaults.v2, today: UTCDay(unixSeconds: now),
                                            detectedAt: now)
        #expect(exposures.map { $0.calibrationConfidence } == [.high, .lowest, .low])
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
