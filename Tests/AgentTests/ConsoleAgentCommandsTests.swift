@testable import Agent
import ENCore
import EventLoop
import Foundation
import HCI
import Testing

/// `time set`, `sync now` (an answer that waits for the download) and reloading the config file, on a
/// whole agent in virtual time.
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
        let stale = simulationStart - 40 * 86_400
        let sim = try Simulation(startUnixSeconds: stale, seed: 41, dataRoot: dir.path)
        var settings = Agent.Settings()
        settings.clockPolicy = .ntp
        let probe = SwitchableClockProbe(synchronised: false)
        let badge = try sim.addBadge("badge", at: .origin, settings: settings, clockProbe: probe)
        let table = AgentConsole.commandTable(for: badge.agent, stop: {})
        sim.run(for: .seconds(60))
        #expect(badge.controller.advertisingHistory.isEmpty)

        // Typos change nothing: a local time without zone, a date that does not exist, a year far off.
        let noZone = try #require(error(table.execute("time set 2021-06-01T22:00:00", channel: .terminal)))
        #expect(noZone == "usage: time set ISO-8601 (give the time zone: Z for UTC, or an offset such as +01:00)")
        #expect(error(table.execute("time set 2021-02-30T10:00:00Z", channel: .terminal))?.contains("the day is out of range") == true)
        #expect(error(table.execute("time set 2150-01-01T00:00:00Z", channel: .terminal))?.contains("expected 2020-2099") == true)
        #expect(error(table.execute("time set", channel: .terminal)) == "usage: time set ISO-8601")
        #expect(!badge.agent.clock.isTrusted && abs(sim.unixSeconds - stale - 60) <= 1)

        // 2021-06-01T22:00:00Z is simulationStart; given as 23:00 at +01:00.
        let set = try json(table.execute("time set 2021-06-01T23:00:00+01:00 --json", channel: .terminal))
        #expect(set["unix"] as? Int == Int(simulationStart))
        #expect(set["trusted"] as? Bool == true)
        #expect((set["trust"] as? String)?.contains("set by the operator") == true)
        sim.run(for: .seconds(1))
        #expect(badge.controller.advertisingHistory.count == 1, "on air within a second")
        let key = try #require(badge.storedKeys.first)
        #expect(key.rollingStart == ENIntervalNumber(unixSeconds: simulationStart)!.dayStart, "the key of the day set")

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

    @Test func syncNowAnswersWhenTheDownloadIsDoneAndAJoinedRunAnswersToo() throws {
        let world = try KeySyncWorld()
        let tek = TemporaryExposureKey(keyData: Bytes16.random(), rollingStart: world.keyDay)
        world.publish(world.export([DiagnosisKey(tek: tek, transmissionRiskLevel: 4)] + world.strangers(30)), at: "one.zip")
        world.publishIndex(["one.zip"])
        var settings = Agent.Settings()
        settings.clockPolicy = .trusted
        settings.configuration = try Configuration(parsing: world.configurationText([
            "keyserver.style = folder", "keyserver.base_url = file://\(world.root)"]))
        let board = VirtualBoard(loop: world.loop, phones: 0, log: .silent)
        let agent = try Agent(loop: world.loop, settings: settings, log: .silent, dataDirectory: world.folder.path + "/agent",
                              makeTransport: { board.makeAgentTransport() })
        sightings(of: tek, from: world.keyDay.unixSeconds + 9 * 3600, minutes: 30, schedule: world.schedule)
            .forEach(agent.store.append)
        agent.start()
        let table = AgentConsole.commandTable(for: agent, stop: {})

        guard case .deferred(let first)? = reply(table.execute("sync now --json", channel: .socket)),
              case .deferred(let joined)? = reply(table.execute("sync now", channel: .terminal)) else {
            throw TestFailure("sync now answers later")
        }
        var answers: [ConsoleReply] = []
        first.attach { answers.append($0) }
        joined.attach { answers.append($0) }
        #expect(answers.isEmpty, "nothing is answered before the run ends")
        #expect(world.loop.run(until: { answers.count == 2 }))
        guard case .json(let text) = answers[0], case .text(let line) = answers[1] else {
            throw TestFailure("answers: \(answers)")
        }
        let document = try #require(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(document["outcome"] as? String == "succeeded")
        #expect(document["keys"] as? Int == 31 && document["matchedKeys"] as? Int == 1)
        #expect(document["newExposures"] as? Int == 1)
        #expect(line.hasPrefix("sync done in ") && line.contains("31 keys, 1 matched"), "\(line)")
        #expect(agent.exposures.exposures.count == 1)

        // A change of key server while a client waits: the run is cancelled, and the client told so.
        guard case .deferred(let waiting)? = reply(table.execute("sync now", channel: .socket)) else {
            throw TestFailure("sync now answers later")
        }
        var cancelled: ConsoleReply?
        waiting.attach { cancelled = $0 }
        try agent.setConfiguration("sync.interval_hours", to: "6")
        if case .error(let reason)? = cancelled { #expect(reason.contains("cancelled")) } else {
            Issue.record("a waiting client hears that its run was cancelled: \(String(describing: cancelled))")
        }

        // No key server: refused at once.
        try agent.setConfiguration("keyserver.base_url", to: "")
        try agent.setConfiguration("keyserver.style", to: "google")
        #expect(error(table.execute("sync now", channel: .socket))?.contains("no key server") == true)
        agent.stop()
    }

    @Test func reloadingTheConfigFileAppliesItKeepsSetOverridesAndRefusesABrokenFile() throws {
        let dir = TemporaryDirectory()
        let path = dir.path + "/enbeacon.conf"
        try "risk.threshold = 3\n# staff\nsync.interval_hours = 12\n".write(toFile: path, atomically: false, encoding: .utf8)
        var settings = Agent.Settings()
        settings.configurationFile = ConfigurationFile(path: path)
        settings.configuration = try ConfigurationFile(path: path).load()
        try settings.configuration.override("match.batch_keys=50")
        let sim = try Simulation(startUnixSeconds: simulationStart, seed: 42, dataRoot: dir.path)
        let badge = try sim.addBadge("badge", at: .origin, settings: settings)
        let agent = badge.agent
        let table = AgentConsole.commandTable(for: agent, stop: {})

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
