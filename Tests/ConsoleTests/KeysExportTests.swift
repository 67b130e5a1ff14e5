@testable import Agent
import ENCore
import Foundation
import HCI
import Testing
@testable import Simulation
import TestSupport
@testable import Console

/// Consent-gated key sharing: what `keys export` prints must reproduce what other devices recorded.
@Suite struct KeysExportTests {
    func reply(_ table: CommandTable, _ line: String, channel: ConsoleChannel = .socket) -> ConsoleOutcome {
        table.execute(line, channel: channel)
    }

    @Test func exportedKeysRederiveTheRPIsANeighbourRecorded() throws {
        let dir = TemporaryDirectory()
        let sim = try Simulation(startUnixSeconds: Simulation.twoHoursBeforeMidnight, seed: 11, dataRoot: dir.path)
        let wearer = try sim.addBadge("wearer", at: .origin)
        let neighbour = try sim.addBadge("neighbour", at: RadioPosition(x: 1.5, y: 0))
        sim.run(for: .seconds(3 * 3600))  // across midnight: two keys
        let table = AgentConsole.commandTable(for: AgentControl(agent: wearer.agent, stop: {}))

        guard case .reply(.json(let text), _) = reply(table, "keys export --yes") else {
            Issue.record("keys export --yes on the socket must answer JSON")
            return
        }
        let document = try JSONSerialization.jsonObject(with: Data(text.utf8)) as! [String: Any]
        let keys = document["temporaryExposureKeys"] as! [[String: Any]]
        #expect(keys.count == 2)
        let schedule = try KeySchedule()
        var derived = Set<Bytes16>()
        for key in keys {
            let data = Bytes16(Data(base64Encoded: key["key"] as! String)!)!
            let start = ENIntervalNumber(UInt32(key["rollingStartNumber"] as! Int))
            #expect(key["rollingPeriod"] as? Int == 144)
            schedule.withRPIs(rpik: schedule.rpik(data), from: start) { batch in
                for j in 0..<batch.count { derived.insert(batch[j]) }
            }
        }
        neighbour.agent.flush()
        let recorded = try neighbour.agent.store.newestFirst()
        #expect(recorded.count > 20)
        #expect(recorded.allSatisfy { derived.contains($0.rpi) }, "every RPI the neighbour stored re-derives from the export")
    }

    @Test func keysLeaveOnlyWithConsent() throws {
        let dir = TemporaryDirectory()
        let sim = try Simulation(startUnixSeconds: Simulation.twoHoursBeforeMidnight, seed: 12, dataRoot: dir.path)
        let wearer = try sim.addBadge("wearer", at: .origin)
        sim.run(for: .seconds(60))
        let table = AgentConsole.commandTable(for: AgentControl(agent: wearer.agent, stop: {}))
        let tek = wearer.agent.advertiser.keys[0].keyData.hex

        // Without --yes on the socket: refused, and nothing of the key shown.
        if case .reply(let r, _) = reply(table, "keys export") {
            if case .error = r {} else { Issue.record("keys export without --yes must be refused on the socket") }
        } else { Issue.record("expected a refusal") }
        // On an interactive terminal even --yes asks.
        if case .confirm = reply(table, "keys export --yes", channel: .terminal) {} else {
            Issue.record("an interactive console must ask before exporting keys")
        }
        // Redacted by default; revealed with consent.
        if case .reply(.text(let t), _) = reply(table, "keys") { #expect(!t.contains(tek) && t.contains("redacted")) }
        if case .reply(.text(let t), _) = reply(table, "keys --reveal --yes") { #expect(t.contains(tek)) } else {
            Issue.record("keys --reveal --yes on the socket shows the keys")
        }
    }

    @Test func enOffStopsBroadcastingAndScanningAndEnOnResumes() throws {
        let dir = TemporaryDirectory()
        let sim = try Simulation(startUnixSeconds: Simulation.twoHoursBeforeMidnight, seed: 13, dataRoot: dir.path)
        let badge = try sim.addBadge("badge", at: .origin)
        sim.run(for: .seconds(60))
        let table = AgentConsole.commandTable(for: AgentControl(agent: badge.agent, stop: {}))
        _ = reply(table, "en off")
        sim.run(for: .seconds(1))
        #expect(!badge.controller.state.isAdvertising && !badge.controller.state.isScanning)
        let scans = badge.agent.scanner.scans
        sim.run(for: .seconds(3600))
        #expect(badge.agent.scanner.scans == scans, "no scan while off")
        _ = reply(table, "en on")
        sim.run(for: .seconds(1))
        #expect(badge.controller.state.isAdvertising)
        #expect(badge.controller.violations.isEmpty)
    }
}
