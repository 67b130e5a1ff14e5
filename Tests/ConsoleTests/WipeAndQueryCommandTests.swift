@testable import Agent
import ENCore
import Foundation
import HCI
import Testing
@testable import Simulation
import TestSupport
@testable import Console

@Suite struct WipeAndQueryCommandTests {
    func text(_ outcome: ConsoleOutcome) -> String? {
        if case .reply(.text(let t), _) = outcome { return t }
        if case .reply(.json(let t), _) = outcome { return t }
        return nil
    }

    @Test func wipeDeletesKeysSightingsAndExposuresOnlyWithConsent() throws {
        let dir = TemporaryDirectory()
        let sim = try Simulation(startUnixSeconds: Simulation.twoHoursBeforeMidnight, seed: 31, dataRoot: dir.path)
        let badge = try sim.addBadge("badge", at: .origin)
        sim.addPhone(at: RadioPosition(x: 1, y: 0))
        sim.run(for: .seconds(3 * 3600))
        badge.agent.flush()
        let oldKeys = Set(badge.storedKeys.map(\.keyData))
        #expect(oldKeys.count == 2)
        #expect(try badge.agent.store.usage().storedSightings > 10)
        let table = AgentConsole.commandTable(for: AgentControl(agent: badge.agent, stop: {}))

        if case .confirm = table.execute("wipe --yes", channel: .terminal) {} else {
            Issue.record("an interactive console asks before wiping")
        }
        if case .reply(.error, _) = table.execute("wipe", channel: .socket) {} else {
            Issue.record("wipe without --yes on the socket is refused")
        }
        #expect(badge.storedKeys.count == 2, "a refused wipe deletes nothing")

        #expect(text(table.execute("wipe --yes", channel: .socket))?.contains("wiped") == true)
        #expect(try badge.agent.store.usage().storedSightings == 0)
        #expect(badge.agent.exposures.exposures.isEmpty)
        let keys = badge.storedKeys
        #expect(keys.count == 1, "a fresh key, stored before it goes on air")
        #expect(oldKeys.isDisjoint(with: keys.map(\.keyData)))
        sim.run(for: .seconds(1))
        #expect(badge.controller.violations.isEmpty)
    }

    @Test func sightingsSinceAndDailyExposures() throws {
        let dir = TemporaryDirectory()
        let sim = try Simulation(startUnixSeconds: Simulation.twoHoursBeforeMidnight, seed: 32, dataRoot: dir.path)
        let badge = try sim.addBadge("badge", at: .origin)
        sim.addPhone(at: RadioPosition(x: 1, y: 0))
        sim.run(for: .seconds(2 * 3600))
        let table = AgentConsole.commandTable(for: AgentControl(agent: badge.agent, stop: {}))
        let all = try JSONSerialization.jsonObject(with: Data(text(table.execute("sightings --limit 10000 --json", channel: .socket))!.utf8)) as! [String: Any]
        let recent = try JSONSerialization.jsonObject(with: Data(text(table.execute("sightings --since 30m --limit 10000 --json", channel: .socket))!.utf8)) as! [String: Any]
        let allCount = (all["sightings"] as! [Any]).count, recentCount = (recent["sightings"] as! [Any]).count
        #expect(allCount > recentCount && recentCount > 0, "\(allCount) in all, \(recentCount) in the last 30 minutes")
        if case .reply(.error(let line), _) = table.execute("sightings --since soon", channel: .socket) {
            #expect(line.contains("--since: expected a duration"))
        } else {
            Issue.record("a bad duration is refused with the usage line")
        }
        #expect(text(table.execute("exposures --daily", channel: .socket)) == "no exposures")
        #expect(AgentConsole.durationSeconds("90s") == 90 && AgentConsole.durationSeconds("2h") == 7200)
        #expect(AgentConsole.durationSeconds("3d") == 259_200 && AgentConsole.durationSeconds("-1") == nil)
    }
}
