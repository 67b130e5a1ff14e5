import ENCore
import Foundation
import Testing

/// `enbeacon match` end to end: exports written and signed here, sightings derived from some of their
/// keys with `KeySchedule`, and the matched keys, v1 exposures and v2 daily summaries checked against
/// numbers worked out by hand from SPEC §4–5.
@Suite struct MatchCommandTests {
    /// 2020-09-13, a UTC day start.
    static let rsin: UInt32 = 2_666_592
    static let day = "2020-09-13"
    /// Two days later at noon: every key is out of embargo, days since exposure = 2.
    static let now = Int64(rsin) * 600 + 2 * 86_400 + 43_200

    /// Key A: three scans five minutes apart at 60 dB (TX 8 dBm, RSSI −52), confirmed test, TRL 4.
    /// Key B: one scan of unknown gap at 60 dB (TX −10, RSSI −70), self report, onset day 0, TRL 2.
    /// Key C: heard, but 3 hours off its interval (outside the ±2 h tolerance). The rest: never heard.
    struct Scenario {
        let export: WrittenExport
        let keyA: DiagnosisKey
        let keyB: DiagnosisKey
        let keyC: DiagnosisKey
        let sightings: [String]

        init(extraKeys: Int = 40, compression: ZipEntry.Method = .deflated) throws {
            var g = SystemRandomNumberGenerator()
            func tek() -> TemporaryExposureKey { TemporaryExposureKey.generate(for: ENIntervalNumber(rsin), using: &g) }
            keyA = DiagnosisKey(tek: tek(), transmissionRiskLevel: 4, reportType: .confirmedTest)
            keyB = DiagnosisKey(tek: tek(), transmissionRiskLevel: 2, reportType: .selfReport, daysSinceOnsetOfSymptoms: 0)
            keyC = DiagnosisKey(tek: tek(), transmissionRiskLevel: 4, reportType: .confirmedTest)
            var keys = WrittenExport.keys(count: extraKeys, rollingStart: rsin)
            keys.insert(keyA, at: keys.count / 3)
            keys.insert(keyB, at: keys.count / 2)
            keys.append(keyC)
            export = try WrittenExport(keys: keys, compression: compression)
            let schedule = try KeySchedule()
            func line(_ key: DiagnosisKey, interval offset: UInt32, at time: Int64, txPower: Int8, rssi: Int, gap: Int) -> String {
                MatchCommandTests.sightingLine(key, interval: offset, at: time, txPower: txPower, rssi: rssi, gap: gap,
                                               schedule: schedule)
            }
            let t0 = Int64(rsin + 60) * 600 + 30
            var lines = [
                line(keyA, interval: 60, at: t0, txPower: 8, rssi: -52, gap: 300),
                line(keyA, interval: 60, at: t0 + 300, txPower: 8, rssi: -52, gap: 300),
                line(keyA, interval: 61, at: t0 + 600, txPower: 8, rssi: -52, gap: 300),
                line(keyB, interval: 100, at: Int64(rsin + 100) * 600 + 5, txPower: -10, rssi: -70, gap: 0),
                line(keyC, interval: 10, at: Int64(rsin + 28) * 600, txPower: 8, rssi: -60, gap: 300),
            ]
            for i in 0..<30 {
                let random = (0..<16).map { _ in UInt8.random(in: 0...255, using: &g) }
                lines.insert("{\"rpi\":\"\(Hex.encode(random))\",\"aem\":\"00000000\",\"rssi\":-80,\"time\":\(t0 + Int64(i) * 60)}",
                             at: i % lines.count)
            }
            sightings = lines
        }

        /// Writes the export, its key and the sightings; returns the paths.
        func files(in dir: TestDirectory) throws -> (zip: String, key: String, sightings: String) {
            (try dir.write("export.zip", export.zip),
             try dir.write("key.pem", text: export.signingKey.publicKeyPEM),
             try dir.write("sightings.jsonl", text: sightings.joined(separator: "\n") + "\n"))
        }
    }

    /// One line of a sightings file: `key`'s RPI for interval `rsin + offset` heard at `time`.
    static func sightingLine(_ key: DiagnosisKey, interval offset: UInt32, at time: Int64, txPower: Int8, rssi: Int, gap: Int,
                             schedule: KeySchedule) -> String {
        let n = ENIntervalNumber(rsin + offset)
        let rpi = schedule.rpi(rpik: schedule.rpik(key.tek.keyData), interval: n)
        let aem = schedule.aem(aemk: schedule.aemk(key.tek.keyData), rpi: rpi, Metadata(txPower: txPower).plaintext)
        return "{\"rpi\":\"\(rpi.hex)\",\"aem\":\"\(aem.hex)\",\"rssi\":\(rssi),\"time\":\(time),"
            + "\"secondsSincePreviousScan\":\(gap),\"address\":\"ignored\"}"
    }

    static func run(_ extra: [String] = [], _ files: (zip: String, key: String, sightings: String)) throws -> Enbeacon.Result {
        try Enbeacon.run(["match", "--export", files.zip, "--key", files.key, "--sightings", files.sightings,
                          "--now", String(now)] + extra)
    }

    @Test func matchesAndScoresAsWorkedOutByHand() throws {
        let dir = try TestDirectory()
        let scenario = try Scenario()
        let r = try Self.run(["--json"], try scenario.files(in: dir))
        let json = try ExportCommandTests.jsonObject(r)
        #expect(r.stderr.isEmpty)
        #expect(json["verified"] as? Bool == true && json["now"] as? Int == Int(Self.now))

        let matched = try #require(json["matchedKeys"] as? [[String: Any]])
        #expect(matched.map { $0["keyData"] as? String } == [scenario.keyA.tek.keyData.hex, scenario.keyB.tek.keyData.hex])
        #expect(matched.map { $0["sightings"] as? Int } == [3, 1])
        #expect(matched.map { $0["reportType"] as? String } == ["confirmedTest", "selfReport"])
        #expect(matched[1]["daysSinceOnsetOfSymptoms"] as? Int == 0)
        #expect(matched.map { $0["calibrationConfidence"] as? String } == ["lowest", "lowest"], "v1.0 senders")
        #expect(matched[0]["rollingStartIntervalNumber"] as? Int == Int(Self.rsin))

        let statistics = try #require(json["statistics"] as? [String: Any])
        #expect(statistics["keys"] as? Int == 43 && statistics["matchedKeys"] as? Int == 2)
        #expect(statistics["outsideTolerance"] as? Int == 1)
        #expect((json["sightings"] as? [String: Any])?["count"] as? Int == 35)

        // v1, A: 3 × 300 s = 15 min at 60 dB; attenuation bucket 2 (value 3), 2 days ago (bucket 6, value 7),
        // 15 min (bucket 3, value 4), TRL 4 (value 5): 3 × 7 × 4 × 5 = 420; 60 dB is between 50 and 70.
        // B: one scan of unknown gap = 120 s, rounds to 0 min (value 1); TRL 2 (value 3): 3 × 7 × 1 × 3 = 63.
        let v1 = try #require(json["exposuresV1"] as? [[String: Any]])
        #expect(v1.count == 2)
        #expect(v1.map { $0["date"] as? String } == [Self.day, Self.day])
        #expect(v1.map { $0["durationMinutes"] as? Int } == [15, 0])
        #expect(v1.map { $0["typicalAttenuation"] as? Int } == [60, 60])
        #expect(v1.map { $0["attenuationDurations"] as? [Int] } == [[0, 15, 0], [0, 0, 0]])
        #expect(v1.map { $0["riskScore"] as? Int } == [420, 63])

        // v2 (the agent's defaults): 60 dB is "near" (weight 1). A: 900 s × confirmed test 1 × standard 1 = 900.
        // B: 120 s × self report 0.5 × high (onset day 0) 1.5 = 90. One day: sum 990, maximum 900, duration 1020 s.
        let daily = try #require(json["dailySummariesV2"] as? [[String: Any]])
        #expect(daily.count == 1)
        #expect(daily[0]["date"] as? String == Self.day)
        #expect(daily[0]["scoreSum"] as? Double == 990 && daily[0]["maximumScore"] as? Double == 900)
        #expect(daily[0]["weightedDurationSum"] as? Double == 1020)
        let byType = try #require(daily[0]["byReportType"] as? [String: [String: Double]])
        #expect(byType["confirmedTest"]?["scoreSum"] == 900 && byType["selfReport"]?["scoreSum"] == 90)
    }

    @Test func textShowsTheSameResult() throws {
        let dir = try TestDirectory()
        let scenario = try Scenario(compression: .stored)
        let files = try scenario.files(in: dir)
        let r = try Self.run([], files)
        #expect(r.status == 0 && r.stderr.isEmpty)
        let lines = r.stdout.split(separator: "\n").map(String.init)
        #expect(lines[0] == "exports: 1 verified")
        #expect(lines[1].hasPrefix("  \(files.zip): region XX, ") && lines[1].hasSuffix("43 keys, 0 revised, skipped none, signed by 999-v1"))
        #expect(lines.contains("sightings: 35 from \(files.sightings)"))
        #expect(lines.contains("matched keys: 2"))
        #expect(lines.contains("  \(scenario.keyA.tek.keyData.hex.prefix(16)) rsin \(Self.rsin) (2020-09-13T00:00:00Z) period 144 trl 4 report confirmedTest onset - sightings 3"))
        #expect(lines.contains("exposures v1: 2"))
        #expect(lines.contains("  2020-09-13 duration 15 min, attenuation 60 dB, attenuation durations 0/15/0 min, trl 4, risk score 420, confirmedTest"))
        #expect(lines.contains("daily summaries v2: 1"))
        #expect(lines.last == "  2020-09-13 score sum 990, maximum score 900, weighted duration 1020 s")
    }

    /// Keys with any days_since_onset_of_symptoms match (Google's rule): −14, 14, 15 and the EU gateway's 2003,
    /// 3000 and 4014, each heard in three scans; the value is shown as the export gave it, and the four beyond
    /// −14…14 score as an unknown onset (standard: 900 each), while −14 and 14 are days the default map calls
    /// not infectious.
    @Test func keysWithAnyOnsetMatchAndShowIt() throws {
        let dir = try TestDirectory()
        var g = SystemRandomNumberGenerator()
        let onsets = [-14, 14, 15, 2003, 3000, 4014]
        let keys = onsets.map {
            DiagnosisKey(tek: TemporaryExposureKey.generate(for: ENIntervalNumber(Self.rsin), using: &g),
                         transmissionRiskLevel: 4, reportType: .confirmedTest, daysSinceOnsetOfSymptoms: $0)
        }
        let export = try WrittenExport(keys: keys + WrittenExport.keys(count: 5, rollingStart: Self.rsin))
        let schedule = try KeySchedule()
        let t0 = Int64(Self.rsin + 60) * 600 + 30
        let lines = keys.flatMap { key in
            (0..<3).map { i in
                Self.sightingLine(key, interval: 60 + UInt32(i / 2), at: t0 + Int64(i) * 300, txPower: 8, rssi: -52,
                                  gap: 300, schedule: schedule)
            }
        }
        let files = (try dir.write("export.zip", export.zip), try dir.write("key.pem", text: export.signingKey.publicKeyPEM),
                     try dir.write("sightings.jsonl", text: lines.joined(separator: "\n") + "\n"))
        let r = try Self.run(["--json"], files)
        let json = try ExportCommandTests.jsonObject(r)
        let skipped = try #require((json["exports"] as? [[String: Any]])?.first?["skipped"] as? [String: Any])
        #expect(skipped["total"] as? Int == 0 && skipped["onsetOutOfRange"] == nil)
        let matched = try #require(json["matchedKeys"] as? [[String: Any]])
        #expect(matched.map { $0["keyData"] as? String } == keys.map(\.tek.keyData.hex))
        #expect(matched.map { $0["daysSinceOnsetOfSymptoms"] as? Int } == onsets)
        #expect(matched.map { $0["sightings"] as? Int } == Array(repeating: 3, count: 6))
        let daily = try #require(json["dailySummariesV2"] as? [[String: Any]])
        #expect(daily.map { $0["scoreSum"] as? Double } == [4 * 900])

        let text = try Self.run([], files).stdout
        #expect(text.contains("matched keys: 6"))
        #expect(text.contains("\(keys[3].tek.keyData.hex.prefix(16)) rsin \(Self.rsin) (2020-09-13T00:00:00Z) period 144 trl 4 "
                              + "report confirmedTest onset 2003 sightings 3"))
    }

    @Test func configurationChangesTheScores() throws {
        let dir = try TestDirectory()
        let files = try Scenario().files(in: dir)
        // Apple's shape with a minimum that B's 63 misses, plus v2 members with a minimum window score of 100.
        let config = try dir.write("risk.json", text: """
            {"minimumRiskScore":100, "attenuationDurationThresholds":[50,70],
             "attenuationLevelValues":[1,2,3,4,5,6,7,8], "daysSinceLastExposureLevelValues":[1,2,3,4,5,6,7,8],
             "durationLevelValues":[1,2,3,4,5,6,7,8], "transmissionRiskLevelValues":[1,2,3,4,5,6,7,8],
             "attenuationThresholds":[55,63,70],
             "attenuationWeights":{"immediate":1.5,"near":1.0,"medium":0.5,"other":0},
             "reportTypeWeights":{"confirmedTest":1,"confirmedClinicalDiagnosis":1,"selfReport":0.5,"recursive":0},
             "infectiousnessWeights":{"standard":1,"high":1.5}, "minimumWindowScore":100}
            """)
        let json = try ExportCommandTests.jsonObject(try Self.run(["--config", config, "--json"], files))
        #expect((json["exposuresV1"] as? [[String: Any]])?.map { $0["riskScore"] as? Int } == [420, 0])
        let daily = try #require(json["dailySummariesV2"] as? [[String: Any]])
        #expect(daily.first?["scoreSum"] as? Double == 900)

        let bad = try dir.write("bad.json", text: "{\"minimumRiskScore\":0,\"attenuationDurationThresholds\":[50,70]}")
        let r = try Self.run(["--config", bad], files)
        #expect(r.status == 1 && r.stderrLines.count == 1 && r.stderr.contains("attenuationLevelValues: missing"))
    }

    /// The badge's `radio.rssi_correction`, layered as the agent layers it: A and B, heard at 60 dB, are 53 dB
    /// away with the board profile's +7, and 65 dB with the config file's −5, this unit's own, which takes the
    /// board's place.
    @Test func theBadgesRSSICorrectionMovesTheAttenuations() throws {
        let dir = try TestDirectory()
        let files = try Scenario().files(in: dir)
        let board = try dir.write("badge.conf", text: "name = badge\nradio.rssi_correction = 7\n")
        let config = try dir.write("enbeacon.conf", text: "radio.rssi_correction = -5\n")
        func attenuations(_ extra: [String]) throws -> [Int] {
            let json = try ExportCommandTests.jsonObject(try Self.run(extra + ["--json"], files))
            let correction = try #require(json["rssiCorrection"] as? Int)
            return [correction] + (json["exposuresV1"] as? [[String: Any]] ?? []).compactMap { $0["typicalAttenuation"] as? Int }
        }
        #expect(try attenuations([]) == [0, 60, 60])
        #expect(try attenuations(["--board", board]) == [7, 53, 53])
        #expect(try attenuations(["--board", board, "--agent-config", config]) == [-5, 65, 65])
        #expect(try attenuations(["--agent-config", config]) == [-5, 65, 65])
        let text = try Self.run(["--board", board], files).stdout
        #expect(text.contains("\nrssi correction: 7 dB (radio.rssi_correction)\n"), "\(text)")

        let bad = try dir.write("bad.conf", text: "radio.rssi_correction = 41\n")
        for option in ["--board", "--agent-config"] {
            let r = try Self.run([option, bad], files)
            #expect(r.status == 2 && r.stderrLines.count == 1, "\(r.stderr)")
            #expect(r.stderr.hasPrefix("enbeacon match: \(option)") && r.stderr.contains("radio.rssi_correction: expected -40"),
                    "\(r.stderr)")
        }
    }

    @Test(arguments: [
        ("{\"rpi\":\"00\",\"aem\":\"00000000\",\"rssi\":-50,\"time\":1}", "rpi: expected 32 hex digits"),
        ("{\"rpi\":\"00112233445566778899aabbccddeeff\",\"aem\":\"0000\",\"rssi\":-50,\"time\":1}", "aem: expected 8 hex digits"),
        ("{\"rpi\":\"00112233445566778899aabbccddeeff\",\"aem\":\"00000000\",\"rssi\":-50}", "time: missing"),
        ("{\"rpi\":\"00112233445566778899aabbccddeeff\",\"aem\":\"00000000\",\"rssi\":-500,\"time\":1}", "rssi: -500 is outside"),
        ("{\"rpi\":\"00112233445566778899aabbccddeeff\",\"aem\":\"00000000\",\"rssi\":-50,\"time\":1.5}", "time: expected an integer"),
        ("[1,2,3]", "expected a JSON object"),
        ("{\"rpi\":", "not JSON"),
    ])
    func aBadSightingLineNamesItsNumber(line: String, reason: String) throws {
        let dir = try TestDirectory()
        let scenario = try Scenario(extraKeys: 2)
        var files = try scenario.files(in: dir)
        files.sightings = try dir.write("bad.jsonl", text: scenario.sightings[0] + "\n\n" + line + "\n" + scenario.sightings[1] + "\n")
        let r = try Self.run([], files)
        #expect(r.status == 1 && r.stdout.isEmpty && r.stderrLines.count == 1)
        #expect(r.stderr.hasPrefix("enbeacon match: \(files.sightings) line 3: ") && r.stderr.contains(reason), "\(r.stderr)")
    }

    @Test func unverifiedExportsAreMatchedOnlyOnRequest() throws {
        let dir = try TestDirectory()
        let scenario = try Scenario(extraKeys: 5)
        let files = try scenario.files(in: dir)
        let refused = try Enbeacon.run(["match", "--export", files.zip, "--sightings", files.sightings])
        #expect(refused.status == 2 && refused.stderrLines.count == 1 && refused.stderr.contains("--insecure-skip-verify"))

        // A bare export.bin cannot be verified at all, but can be matched knowingly.
        let bare = try dir.write("export.bin", try scenario.export.exportBin())
        let insecure = try Enbeacon.run(["match", "--export", bare, "--sightings", files.sightings, "--now", String(Self.now),
                                         "--insecure-skip-verify", "--json"])
        #expect(insecure.stderr == "enbeacon match: warning: --insecure-skip-verify: export signatures are not checked\n")
        let json = try ExportCommandTests.jsonObject(insecure)
        #expect(json["verified"] as? Bool == false)
        #expect((json["matchedKeys"] as? [Any])?.count == 2)

        let unsigned = try Self.run([], (bare, files.key, files.sightings))
        #expect(unsigned.status == 1 && unsigned.stderr.contains("export.sig is missing"))
        let wrongKey = try dir.write("wrong.pem", text: try SigningKey.generateP256().publicKeyPEM)
        let wrong = try Self.run([], (files.zip, wrongKey, files.sightings))
        #expect(wrong.status == 1 && wrong.stdout.isEmpty && wrong.stderrLines.count == 1)
        #expect(wrong.stderr.contains("signature by 999-v1 does not verify"))
    }

    /// Keys of a two-file batch count only with both files; a revocation in a later file withdraws a match.
    @Test func batchesAndRevocations() throws {
        let dir = try TestDirectory()
        let scenario = try Scenario(extraKeys: 4)
        let files = try scenario.files(in: dir)
        let key = scenario.export.signingKey
        let first = try dir.write("b1.zip", try WrittenExport(keys: [scenario.keyA], batch: (1, 2), signingKey: key).zip)
        let second = try dir.write("b2.zip", try WrittenExport(keys: [scenario.keyB], batch: (2, 2), signingKey: key).zip)
        let alone = try Self.run([], (first, files.key, files.sightings))
        #expect(alone.status == 1 && alone.stderr.contains("is incomplete: 1 of 2 files given"))
        let both = try ExportCommandTests.jsonObject(try Self.run(["--json", second], (first, files.key, files.sightings)))
        #expect((both["matchedKeys"] as? [Any])?.count == 2)
        #expect((both["exports"] as? [Any])?.count == 2)

        let revocation = try dir.write("revoked.zip", try WrittenExport(
            keys: [], revisedKeys: [DiagnosisKey(tek: scenario.keyA.tek, reportType: .revoked)], start: 1_600_100_000,
            signingKey: key).zip)
        let revoked = try ExportCommandTests.jsonObject(try Self.run(["--json", "--export", revocation], files))
        #expect((revoked["matchedKeys"] as? [[String: Any]])?.map { $0["keyData"] as? String } == [scenario.keyB.tek.keyData.hex])
        #expect((revoked["statistics"] as? [String: Any])?["revoked"] as? Int == 1)
    }

    @Test(arguments: [
        (["match", "--sightings", "s", "--key", "k"], "missing --export FILE"),
        (["match", "--export", "e", "--key", "k"], "missing --sightings"),
        (["match", "--export", "e", "--sightings", "s"], "missing --key PEM"),
        (["match", "--export", "e", "--sightings", "s", "--key", "k", "--insecure-skip-verify"], "exclude each other"),
        (["match", "--export", "e", "--sightings", "s", "--key", "k", "--now", "yesterday"], "--now: expected Unix seconds"),
        (["match", "--export", "e", "--sightings", "s", "--key", "k", "--key-id", "1"], "--key-id needs --key-version"),
        (["match", "--export", "e", "--sightings", "s", "--key", "k", "--frobnicate"], "unknown option --frobnicate"),
        (["match", "--export", "e", "--sightings", "s", "--sightings", "t", "--key", "k"], "--sightings given 2 times"),
    ])
    func usageErrorsExitTwoWithOneLine(arguments: [String], message: String) throws {
        let r = try Enbeacon.run(arguments)
        #expect(r.isOneLineUsageError)
        #expect(r.stderr.contains(message), "stderr was: \(r.stderr)")
    }

    @Test func missingFilesFailWithOneLine() throws {
        let dir = try TestDirectory()
        let files = try Scenario(extraKeys: 1).files(in: dir)
        for (files, expected) in [((dir.path("none.zip"), files.key, files.sightings), "none.zip: No such file"),
                                  ((files.zip, dir.path("none.pem"), files.sightings), "--key \(dir.path("none.pem")): No such file"),
                                  ((files.zip, files.key, dir.path("none.jsonl")), "none.jsonl: No such file")] {
            let r = try Self.run([], files)
            #expect(r.status == 1 && r.stderrLines.count == 1 && r.stderr.contains(expected), "\(r.stderr)")
        }
    }

    /// Matching streams the keys: the peak RSS of a 150,000-key export is within a few MB of a 5,000-key one's
    /// (the keys alone would be 9 MB as a list), and below the 32 MB budget.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/time"), "needs /usr/bin/time"))
    func peakMemoryDoesNotGrowWithTheExport() throws {
        let dir = try TestDirectory()
        let scenario = try Scenario(extraKeys: 10)
        var files = try scenario.files(in: dir)
        var peaks: [Int] = []
        for count in [5_000, 150_000] {
            let writer = try ExportWriter(
                descriptor: ExportDescriptor(startTimestamp: 1_600_000_000, endTimestamp: 1_600_086_400, region: "XX"),
                signers: [ExportSigner(key: scenario.export.signingKey, keyID: ExportCommandTests.id)],
                output: InMemoryExportOutput())
            var g = SystemRandomNumberGenerator()
            for i in 0..<count {
                try writer.add(i == count / 2 ? scenario.keyA : DiagnosisKey(
                    tek: TemporaryExposureKey.generate(for: ENIntervalNumber(Self.rsin), using: &g), transmissionRiskLevel: 3))
            }
            files.zip = try dir.write("big\(count).zip", try writer.finish().bytes)
            let report = dir.path("time\(count).txt")
            let r = try Enbeacon.run(viaTime: report, ["match", "--export", files.zip, "--key", files.key, "--sightings",
                                                       files.sightings, "--now", String(Self.now), "--json"])
            let json = try ExportCommandTests.jsonObject(r)
            #expect((json["matchedKeys"] as? [Any])?.count == 1)
            peaks.append(try #require(Int(try String(contentsOfFile: report, encoding: .utf8)
                .trimmingCharacters(in: .whitespacesAndNewlines))))
        }
        print("enbeacon match peak RSS: 5,000 keys \(peaks[0]) KB, 150,000 keys \(peaks[1]) KB")
        expectMemory(peaks[1] - peaks[0] < 3 * 1024, "150,000 keys peak \(peaks[1] - peaks[0]) KB above 5,000 keys, under 3 MB")
        expectMemory(peaks[1] < 32 * 1024, "150,000 keys peak \(peaks[1]) KB, under 32 MB")
    }

    @Test func benchMatchesAnExportFile() throws {
        let dir = try TestDirectory()
        let path = dir.path("bench.zip")
        let first = try Enbeacon.run(["bench", "match", "--keys", "20000", "--sightings", "200", "--export-file", path])
        #expect(first.status == 0, "\(first.stdout) \(first.stderr)")
        let lines = first.stdout.split(separator: "\n")
        #expect(lines.first?.contains("written in") == true)
        #expect(lines.contains("keys 20000, sightings 200, planted 2, matched keys 2, skipped none"))
        #expect(lines.last?.hasPrefix("match-file-peak-rss ") == true && lines.last?.hasSuffix(" MB") == true)
        // Reused: the count comes from the file.
        let again = try Enbeacon.run(["bench", "match", "--keys", "5", "--sightings", "200", "--export-file", path])
        #expect(again.status == 0 && again.stdout.contains("keys 20000,") && !again.stdout.contains("written in"))
    }

    /// The compiler `bench match --reference` runs: the first word of `CC` (Tools/board/run-tests sets it to the
    /// target's cross gcc for an emulated agent), else `cc`, found on PATH.
    static var compilerAvailable: Bool {
        let command = ProcessInfo.processInfo.environment["CC"]?.split(whereSeparator: { $0 == " " || $0 == "\t" }).first
            .map(String.init) ?? "cc"
        if command.contains("/") { return FileManager.default.isExecutableFile(atPath: command) }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").contains { FileManager.default.isExecutableFile(atPath: "\($0)/\(command)") }
    }

    /// The C reference builds from the checkout, derives the same RPIs (else the status is 1) and matches the
    /// same keys, and each figure comes with its ratio.
    @Test(.enabled(if: compilerAvailable, "no cc: bench match --reference compiles its C reference"))
    func benchSetsSwiftAgainstTheCReference() throws {
        let r = try Enbeacon.run(["bench", "match", "--keys", "20000", "--sightings", "200", "--reference"])
        #expect(r.status == 0, "\(r.stdout) \(r.stderr)")
        let lines = r.stdout.split(separator: "\n")
        #expect(lines.contains { $0.hasPrefix("key schedule: Swift ") && $0.contains(" keys/s, C reference ") && $0.contains(", ratio ") })
        #expect(lines.contains { $0.hasPrefix("matcher at 200 sightings: Swift ") && $0.hasSuffix(", C matched keys 2") })
        #expect(lines.last?.hasPrefix("match ") == true)
    }

    /// `CC` is a command with arguments, all passed to the compiler, and the failure names the whole command.
    @Test(.enabled(if: compilerAvailable, "no cc: bench match --reference compiles its C reference"))
    func benchReferenceTakesTheCompilerFromCCAndNamesItWhenItFails() throws {
        let cc = (ProcessInfo.processInfo.environment["CC"] ?? "").isEmpty ? "cc" : ProcessInfo.processInfo.environment["CC"]!
        let r = try Enbeacon.run(["bench", "match", "--keys", "20", "--sightings", "2", "--reference"],
                                 environment: ["CC": cc + " -fenbeacon-no-such-flag"])
        #expect(r.status == 1)
        let words = cc.split(separator: " ").joined(separator: " ")
        #expect(r.stdout.hasPrefix("enbeacon bench match: --reference: \(words) -fenbeacon-no-such-flag -O2 -shared -fPIC ")
                && r.stdout.contains("match-reference.c -lcrypto failed (status 1)"), "\(r.stdout) \(r.stderr)")
    }
}

extension Enbeacon {
    /// Runs the binary under /usr/bin/time, which writes the peak RSS in KB to `report`.
    static func run(viaTime report: String, _ arguments: [String]) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/time")
        process.arguments = ["-f", "%M", "-o", report, binary.path] + arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
                      stderr: String(decoding: stderr, as: UTF8.self))
    }
}
