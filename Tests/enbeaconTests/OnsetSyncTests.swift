import ENCore
import Foundation
import Testing

/// The agent's key sync keeps keys with any days_since_onset_of_symptoms (Google's rule), as `enbeacon match`
/// does: an export from a key server holding keys with −14, 14, 15 and the EU gateway's 2003, 3000 and 4014,
/// each met by the badge, gives six exposures; `exposures` shows each value as the export gave it, and the four
/// beyond −14…14 score as an unknown onset.
@Suite struct OnsetSyncTests {
    @Test func theAgentKeepsEveryOnsetAndShowsIt() throws {
        let dir = try TestDirectory()
        let world = try AgentSyncWorld(dir)
        var g = SystemRandomNumberGenerator()
        let onsets = [-14, 14, 15, 2003, 3000, 4014]
        let keys = onsets.map {
            DiagnosisKey(tek: TemporaryExposureKey.generate(for: world.keyDay, using: &g), transmissionRiskLevel: 4,
                         reportType: .confirmedTest, daysSinceOnsetOfSymptoms: $0)
        }
        // Met one after another, an hour apart from 08:00, 20 minutes each; plus a key met without an onset.
        let unknown = DiagnosisKey(tek: TemporaryExposureKey.generate(for: world.keyDay, using: &g), transmissionRiskLevel: 4,
                                   reportType: .confirmedTest)
        for (i, key) in (keys + [unknown]).enumerated() {
            try world.meet(key, from: world.keyDay.unixSeconds + Int64(8 + i) * 3600)
        }
        try world.publish("eu.zip") { writer in
            for key in keys + [unknown] { try writer.add(key) }
        } size: { _ in }
        try world.publishIndex(["eu.zip"])

        let (server, agent, report) = try world.servedAndSynced(dir)
        defer {
            agent.stop()
            server.stop()
        }
        #expect(report["matchedKeys"] as? Int == 7, "\(report)")

        let listed = try #require(try JSONSerialization.jsonObject(with: Data(try agent.ctl("--json", "exposures").utf8))
                                  as? [String: Any])
        let exposures = try #require(listed["exposures"] as? [[String: Any]])
        #expect(exposures.count == 7)
        #expect(Set(exposures.compactMap { $0["daysSinceOnsetOfSymptoms"] as? Int }) == Set(onsets))
        #expect(exposures.filter { $0["daysSinceOnsetOfSymptoms"] is NSNull }.count == 1)
        var lines = try agent.ctl("exposures").split(separator: "\n")
        #expect(lines.popLast()?.hasPrefix("risk model google: ") == true, "the last line says which model decided")
        #expect(lines.count == 7)
        for onset in onsets.map(String.init) + ["-"] {
            #expect(lines.filter { $0.hasSuffix(", confirmedTest, onset \(onset)") }.count == 1, "onset \(onset): \(lines)")
        }

        // Window scores, from the stored exposures: the four beyond −14…14 score as the key without an onset
        // (standard), −14 and 14 are days the default map calls not infectious.
        var scores: [Int?: Double] = [:]
        for line in try String(contentsOfFile: world.data + "/exposures", encoding: .utf8).split(separator: "\n") {
            let exposure = try #require(Exposure(json: String(line)))
            scores[exposure.daysSinceOnsetOfSymptoms] = exposure.windowScore
        }
        let standard = try #require(scores[Int?.none])
        #expect(standard > 0)
        for onset in [15, 2003, 3000, 4014] { #expect(scores[onset] == standard, "onset \(onset)") }
        #expect(scores[-14] == 0 && scores[14] == 0)
    }
}
