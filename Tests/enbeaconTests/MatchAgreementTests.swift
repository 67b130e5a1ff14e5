import ENCore
import Foundation
import Store
import Testing

/// Issue 11: the agent's key sync and `enbeacon match` are one pipeline. The same two export files and the
/// same sightings — some without RSSI — go to a running agent (`sync now` from a key server) and to
/// `enbeacon match`, and both report the same matched keys and the same exposures, field for field.
@Suite struct MatchAgreementTests {
    @Test func theAgentAndMatchReportIdenticalMatchesAndExposures() throws {
        let dir = try TestDirectory()
        let world = try AgentSyncWorld(dir)
        var g = SystemRandomNumberGenerator()
        func key(_ reportType: ReportType = .confirmedTest, trl: Int = 4, onset: Int? = nil) -> DiagnosisKey {
            DiagnosisKey(tek: TemporaryExposureKey.generate(for: world.keyDay, using: &g), transmissionRiskLevel: trl,
                         reportType: reportType, daysSinceOnsetOfSymptoms: onset)
        }
        // A: heard close (45 dB). B: heard, but never with an RSSI. C: heard, then revoked. D: a self report,
        // revised to a confirmed test in the second file. E: heard with and without RSSI. Strangers: never heard.
        let a = key(), b = key(trl: 6, onset: 2), c = key(), d = key(.selfReport, trl: 2), e = key(.confirmedClinicalDiagnosis)
        var sightings: [ENCore.Sighting] = []
        let schedule = try KeySchedule()
        func hear(_ key: DiagnosisKey, hour: Int, scans: Int, rssi: (Int) -> Int8?) {
            let rpik = schedule.rpik(key.tek.keyData), aemk = schedule.aemk(key.tek.keyData)
            let start = world.keyDay.unixSeconds + Int64(hour * 3600)
            for scan in 0..<scans {
                let time = start + Int64(scan * 240)
                let rpi = schedule.rpi(rpik: rpik, interval: ENIntervalNumber(unixSeconds: time)!)
                let aem = schedule.aem(aemk: aemk, rpi: rpi, Metadata(txPower: -4).plaintext)
                sightings.append(ENCore.Sighting(rpi: rpi, aem: aem, firstSeen: time,
                                                 signal: rssi(scan).map { SignalStrength(max: $0 + 3, mean: $0) },
                                                 reports: 3, secondsSincePreviousScan: scan == 0 ? 0 : 240))
            }
        }
        hear(a, hour: 8, scans: 8) { _ in -49 }
        hear(b, hour: 10, scans: 6) { _ in nil }
        hear(c, hour: 12, scans: 5) { _ in -60 }
        hear(d, hour: 14, scans: 9) { _ in -70 }
        hear(e, hour: 16, scans: 10) { $0 % 2 == 0 ? -58 : nil }
        let store = try SightingStore(dataDirectory: world.data)
        sightings.forEach(store.append)
        try store.flush()

        var revisedD = d
        revisedD.reportType = .confirmedTest
        var revokedC = c
        revokedC.reportType = .revoked
        let strangers = (0..<300).map { _ in key(trl: 1) }
        try world.publish("1.zip") { writer in
            for k in Array(strangers[..<150]) + [a, b, c, d, e] { try writer.add(k) }
        } size: { _ in }
        try world.publish("2.zip") { writer in
            for k in strangers[150...] { try writer.add(k) }
            try writer.add(revisedD, to: .revisedKeys)
            try writer.add(revokedC, to: .revisedKeys)
        } size: { _ in }
        try world.publishIndex(["1.zip", "2.zip"])

        // The agent, from a key server.
        let (server, agent, report) = try world.servedAndSynced(dir)
        defer {
            agent.stop()
            server.stop()
        }
        #expect(report["matchedKeys"] as? Int == 4 && report["revokedKeys"] as? Int == 1, "\(report)")
        let now = try #require(report["startedAt"] as? Int)
        let exposuresFile = try String(contentsOfFile: world.data + "/exposures", encoding: .utf8)
        let agentExposures = try exposuresFile.split(separator: "\n").compactMap { line -> [String: Any]? in
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            return object?["id"] == nil ? nil : object  // tombstones of revoked keys have none
        }

        // enbeacon match, on the same files and sightings (no RSSI written as null).
        let lines = sightings.map { s in
            "{\"rpi\":\"\(s.rpi.hex)\",\"aem\":\"\(s.aem.hex)\",\"rssi\":\(s.signal.map { String($0.mean) } ?? "null"),"
                + "\"rssiMax\":\(s.signal.map { String($0.max) } ?? "127"),\"time\":\(s.firstSeen),\"reports\":\(s.reports),"
                + "\"secondsSincePreviousScan\":\(s.secondsSincePreviousScan)}"
        }
        let sightingsFile = try dir.write("sightings.jsonl", text: lines.joined(separator: "\n") + "\n")
        let matched = try Enbeacon.run(["match", "--export", world.root + "/1.zip", world.root + "/2.zip",
                                        "--key", world.publicKey, "--sightings", sightingsFile, "--now", String(now), "--json"])
        #expect(matched.status == 0, "\(matched.stderr)")
        let json = try ExportCommandTests.jsonObject(matched)
        let matchExposures = try #require(json["exposures"] as? [[String: Any]])

        // The same keys, by exposure id: A, B, D (as revised), E; never C.
        let expected = Set([a, b, d, e].map { ExposureID(key: $0.tek).hex })
        let matchedIDs = (json["matchedKeys"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
        #expect(Set(matchedIDs) == expected && matchedIDs.count == 4)
        #expect(Set(agentExposures.compactMap { $0["id"] as? String }) == expected)
        #expect(Set(matchExposures.compactMap { $0["id"] as? String }) == expected)
        let revisedReport = (json["matchedKeys"] as? [[String: Any]] ?? [])
            .first { $0["id"] as? String == ExposureID(key: d.tek).hex }?["reportType"] as? String
        #expect(revisedReport == "confirmedTest", "the later report type wins")

        // The same exposures, field for field (whether notify ran is the agent's own business).
        func comparable(_ exposures: [[String: Any]]) throws -> [String: String] {
            var byID: [String: String] = [:]
            for var exposure in exposures {
                exposure["notified"] = nil
                let id = try #require(exposure["id"] as? String)
                let data = try JSONSerialization.data(withJSONObject: exposure, options: [.sortedKeys])
                byID[id] = String(decoding: data, as: UTF8.self)
            }
            return byID
        }
        let fromAgent = try comparable(agentExposures), fromMatch = try comparable(matchExposures)
        for id in expected { #expect(fromAgent[id] == fromMatch[id], "exposure \(id)") }
        // The sightings without RSSI count, at the farthest attenuation: B's exposure is all "far".
        let onlyUnmeasured = try #require(matchExposures.first { $0["id"] as? String == ExposureID(key: b.tek).hex })
        #expect(onlyUnmeasured["typicalAttenuation"] as? Int == 255)
        #expect((onlyUnmeasured["attenuationDurations"] as? [Int])?.prefix(2) == [0, 0])
    }
}
