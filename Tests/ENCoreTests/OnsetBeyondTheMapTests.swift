import Testing
@testable import ENCore

/// Keys keep whatever `days_since_onset_of_symptoms` their export gives (Google's matcher does): a signed export
/// whose keys carry −14, 14, 15 and the EU gateway's encodings 2003 (unknown onset), 3000 (asymptomatic) and
/// 4014 (unknown status) matches all of them against sightings of their RPIs, and risk scoring gives every
/// value beyond −14…14 the configured default infectiousness, as it does a key without an onset.
@Suite struct OnsetBeyondTheMapTests {
    let schedule = try! KeySchedule()
    let signer = ExportTestSigner()
    /// 2020-09-13 00:00 UTC.
    static let day = ENIntervalNumber(2_666_592)
    /// Two days later at noon: out of embargo.
    static let now = Int64(day.value) * 600 + 2 * 86_400 + 43_200
    static let onsets: [Int32] = [-14, 14, 15, 2003, 3000, 4014]

    /// Three scans five minutes apart from interval 60 of the key's day, TX power 8 dBm at RSSI −52 (60 dB).
    func sightings(of keyData: [UInt8]) -> [Sighting] {
        let tek = Bytes16(keyData)!
        let rpik = schedule.rpik(tek), aemk = schedule.aemk(tek)
        return (0..<3).map { i in
            let n = ENIntervalNumber(Self.day.value + 60 + UInt32(i / 2))
            let rpi = schedule.rpi(rpik: rpik, interval: n)
            return Sighting(rpi: rpi, aem: schedule.aem(aemk: aemk, rpi: rpi, Metadata(txPower: 8).plaintext),
                            firstSeen: n.unixSeconds + Int64(i % 2) * 300 + 10, signal: SignalStrength(max: -50, mean: -52),
                            reports: 4, secondsSincePreviousScan: 300)
        }
    }

    /// The six keys and one without an onset (the yardstick for "default"), each heard; plus one never heard.
    func detect(v2: ExposureConfigurationV2 = RiskDefaults.v2) throws -> (ExposureDetection, SkippedKeys, [Exposure]) {
        var keys = Self.onsets.map { onset -> ExportTestKey in
            var key = ExportTestKey.random(rollingStart: Int32(Self.day.value))
            key.reportType = 1
            key.daysSinceOnset = onset
            return key
        }
        var absent = ExportTestKey.random(rollingStart: Int32(Self.day.value))
        absent.reportType = 1
        keys.append(absent)
        let heard = keys.flatMap { sightings(of: $0.keyData) }
        keys.append(.random(rollingStart: Int32(Self.day.value)))
        let verified = try signer.keyring().verify(signer.signedArchive(ExportTestFile(keys: keys)))

        let detection = ExposureDetection(matcher: KeyMatcher(sightings: heard, now: Self.now, schedule: schedule))
        let skipped = try detection.consider(verified, name: "eu.zip")
        let exposures = detection.exposures(v1: RiskDefaults.v1, v2: v2, today: UTCDay(unixSeconds: Self.now),
                                            detectedAt: Self.now)
        return (detection, skipped, exposures)
    }

    @Test func everyOnsetMatchesAndIsKeptAsGiven() throws {
        let (detection, skipped, exposures) = try detect()
        #expect(skipped.total == 0)
        #expect(detection.keys == 8)
        #expect(detection.matched.map(\.key.daysSinceOnsetOfSymptoms) == Self.onsets.map(Int.init) + [nil])
        #expect(detection.matched.map(\.matchedKey.daysSinceOnsetOfSymptoms) == Self.onsets.map(Int.init) + [nil])
        #expect(detection.matched.allSatisfy { $0.matchedKey.sightings.count == 3 })
        #expect(exposures.count == 7)
        #expect(exposures.map(\.daysSinceOnsetOfSymptoms) == Self.onsets.map(Int.init) + [nil])
        // The same exposure text a stored exposure is read back from.
        #expect(exposures.compactMap { Exposure(json: $0.json)?.daysSinceOnsetOfSymptoms } == [-14, 14, 15, 2003, 3000, 4014])
    }

    @Test func beyondTheMapScoresAsTheDefault() throws {
        let (detection, _, exposures) = try detect()
        let byOnset = Dictionary(uniqueKeysWithValues: zip(Self.onsets.map(Int.init) + [Int.min], exposures))
        let yardstick = try #require(byOnset[Int.min])
        #expect(yardstick.windowScore > 0, "the agent's default scores an unknown onset as standard")
        for onset in [15, 2003, 3000, 4014] {
            #expect(byOnset[onset]?.windowScore == yardstick.windowScore, "onset \(onset)")
        }
        // −14 and 14 are days the default map calls not infectious: matched, but no window.
        #expect(byOnset[-14]?.windowScore == 0 && byOnset[14]?.windowScore == 0)
        let infectiousness = detection.matched.map {
            RiskScoringV2.windows(of: $0.matchedKey, configuration: RiskDefaults.v2).first?.infectiousness
        }
        #expect(infectiousness == [nil, nil, .standard, .standard, .standard, .standard, .standard])
    }

    /// The default is the configuration's: set to high, the four beyond the map score as high with it.
    @Test func theConfiguredDefaultDecides() throws {
        let v2 = try ExposureConfigurationV2(json: """
            {"attenuationThresholds": [55, 63, 70],
             "attenuationWeights": {"immediate": 1.5, "near": 1.0, "medium": 0.5, "other": 0},
             "reportTypeWeights": {"confirmedTest": 1, "confirmedClinicalDiagnosis": 1, "selfReport": 0.5, "recursive": 0},
             "infectiousnessWeights": {"standard": 1, "high": 2},
             "infectiousnessWhenOnsetUnknown": "high", "minimumWindowScore": 0}
            """)
        let (detection, _, exposures) = try detect(v2: v2)
        let scores = exposures.map(\.windowScore)
        #expect(scores[2...].allSatisfy { $0 == scores[6] } && scores[6] > 0)
        #expect(detection.matched.dropFirst(2).allSatisfy {
            RiskScoringV2.windows(of: $0.matchedKey, configuration: v2).map(\.infectiousness) == [.high]
        })
    }
}
