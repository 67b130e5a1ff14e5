@testable import AgentBase
@testable import Console
import ENCore
import EventLoop
import Foundation
import HCI
import Testing
@testable import Simulation
import TestSupport
@testable import Agent

/// `time set` and reloading the config file, on a whole agent in virtual time.
@Suite struct ConsoleAgentCommandsTests {
    func reply(_ outcome: ConsoleOutcome) -> ConsoleReply? {
        if case .reply(let reply, _) = outcome { return reply }
        return nil
    }

    func json(_ outcome: ConsoleOutcome) throws -> [String: Any] {
        guard case .json(let text)? = reply(outcome) else { throw TestFailure("not a JSON answer: \(outcome)") }
        return try #require(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    func error(_ outcome: ConsoleOutcome) -> String? {
        if case .error(let line)? = reply(outcome) { return line }
        return nil
    }

    @Test func timeSetPutsABadgeWithoutNTPOrRTCOnAirOnTheRightDay() throws {
        let dir = TemporaryDirectory()
        // A Pi without RTC boots at its last shutdown, here 40 days ago.
        let stale = Simulation.twoHoursBeforeMidnight - 40 * 86_400
        let sim = try Simulation(startUnixSeconds: stale, seed: 41, dataRoot: dir.path)
        var settings = Agent.Settings()
        settings.clockPolicy = .ntp
        let probe = SwitchableClockProbe(synchronised: false)
        let badge = try sim.addBadge("badge", at: .origin, settings: settings, clockProbe: probe)
        let table = AgentConsole.commandTable(for: AgentControl(agent: badge.agent, stop: {}))
        sim.run(for: .seconds(60))
        #expect(badge.controller.advertisingHistory.isEmpty)

        // Typos change nothing: a local time without zone, a date that does not exist, a year far off.
        let noZone = try #require(error(table.execute("time set 2021-06-01T22:00:00", channel: .terminal)))
        #expect(noZone == "usage: time set ISO-8601 (give the time zone: Z for UTC, or an offset such as +01:00)")
        #expect(error(table.execute("time set 2021-02-30T10:00:00Z", channel: .terminal))?.contains("the day is out of range") == true)
        #expect(error(table.execute("time set 2150-01-01T00:00:00Z", channel: .terminal))?.contains("expected 2020-2099") == true)
        #expect(error(table.execute("time set", channel: .terminal)) == "usage: time set ISO-8601")
        #expect(!badge.agent.clock.isTrusted && abs(sim.unixSeconds - stale - 60) <= 1)

        // 2021-06-01T22:00:00Z is Simulation.twoHoursBeforeMidnight; given as 23:00 at +01:00.
        let set = try json(table.execute("time set 2021-06-01T23:00:00+01:00 --json", channel: .terminal))
        #expect(set["unix"] as? Int == Int(Simulation.twoHoursBeforeMidnight))
        #expect(set["trusted"] as? Bool == true)
        #expect((set["trust"] as? String)?.contains("set by the operator") == true)
        sim.run(for: .seconds(1))
        #expect(badge.controller.advertisingHistory.count == 1, "on air within a second")
        let key = try #require(badge.storedKeys.first)
        #expect(key.rollingStart == ENIntervalNumber(unixSeconds: Simulation.twoHoursBeforeMidnight)!.dayStart, "the key of the day set")

        // Set again, 3 hours on (past midnight): the jump rotates at once under the new day's key.
        let entries = badge.controller.advertisingHistory.count
        let later = UTCDateTime(unixSeconds: sim.unixSeconds + 3 * 3600)
        #expect(reply(table.execute("time set \(later)", channel: .terminal)).map { "\($0)" }?.contains("trusted") == true)
        sim.run(for: .seconds(1))
        #expect(badge.controller.advertisingHistory.count == entries + 1)
        #expect(badge.storedKeys.count == 2)
        #expect(badge.controller.violations.isEmpty)

        // Once NTP keeps the clock, a hand-set time would only be pulled back: refused, nothing changes.
        probe.synchronised = true
        let now = sim.unixSeconds
        #expect(error(table.execute("time set \(UTCDateTime(unixSeconds: now + 86_400))", channel: .terminal))?
            .contains("NTP-synchronised") == true)
        #expect(abs(sim.unixSeconds - now) <= 1)
    }

    @Test func reloadingTheConfigFileAppliesItKeepsSetOverridesAndRefusesABrokenFile() throws {
        let dir = TemporaryDirectory()
        let path = dir.path + "/enbeacon.conf"
        try "risk.threshold = 3\n# staff\nsync.interval_hours = 12\n".write(toFile: path, atomically: false, encoding: .utf8)
        var settings = Agent.Settings()
        settings.configurationFile = ConfigurationFile(path: path)
        settings.configuration = try ConfigurationFile(path: path).load()
        try settings.configuration.override("match.batch_keys=50")
        let sim = try Simulation(startUnixSeconds: Simulation.twoHoursBeforeMidnight, seed: 42, dataRoot: dir.path)
        let badge = try sim.addBadge("badge", at: .origin, settings: settings)
        let agent = badge.agent
        let table = AgentConsole.commandTable(for: AgentControl(agent: agent, stop: {}))

        try "risk.threshold = 7\n# staff\nsync.interval_hours = 12\nmatch.batch_keys = 900\n"
            .write(toFile: path, atomically: false, encoding: .utf8)
        #expect(try agent.reloadConfiguration() == ["risk.threshold"], "the override hides the file's match.batch_keys")
        #expect(agent.notifier.settings.threshold == 7)
        let list = try json(table.execute("config list --json", channel: .socket))
        let rows = try #require(list["config"] as? [[String: Any]])
        let byKey = Dictionary(uniqueKeysWithValues: rows.map { ($0["key"] as! String, $0) })
        #expect(byKey["risk.threshold"]?["value"] as? String == "7")
        #expect(byKey["risk.threshold"]?["source"] as? String == "file")
        #expect(byKey["match.batch_keys"]?["value"] as? String == "50")
        #expect(byKey["match.batch_keys"]?["source"] as? String == "override")
        #expect(byKey["notify.command"]?["source"] as? String == "default")
        #expect(rows.count == ConfigurationKey.all.count)

        // A broken file (a typo in a key, a value out of range) changes nothing, and says where.
        for broken in ["risk.treshold = 9\n", "risk.threshold = 99999\n"] {
            try broken.write(toFile: path, atomically: false, encoding: .utf8)
            #expect(throws: ConfigurationError.self) { try agent.reloadConfiguration() }
            #expect(agent.configuration.integer(.riskThreshold) == 7)
        }
        // A removed file too.
        try FileManager.default.removeItem(atPath: path)
        #expect(throws: ConfigurationError.self) { try agent.reloadConfiguration() }
        #expect(agent.configuration.integer(.riskThreshold) == 7)
    }
}
