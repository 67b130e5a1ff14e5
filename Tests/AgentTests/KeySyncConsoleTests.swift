@testable import Agent
@testable import AgentBase
@testable import Console
import ENCore
import EventLoop
import Foundation
import Network
@testable import Simulation
import KeySyncTestSupport
import Testing
import TestSupport

/// `sync now` through the console: an answer that waits for the download, on a whole agent.
@Suite struct KeySyncConsoleTests {
    func reply(_ outcome: ConsoleOutcome) -> ConsoleReply? {
        if case .reply(let reply, _) = outcome { return reply }
        return nil
    }

    func error(_ outcome: ConsoleOutcome) -> String? {
        if case .error(let line)? = reply(outcome) { return line }
        return nil
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
        agent.attach(network: try HTTPClient(loop: world.loop))
        sightings(of: tek, from: world.keyDay.unixSeconds + 9 * 3600, minutes: 30, schedule: world.schedule)
            .forEach(agent.store.append)
        agent.start()
        let table = AgentConsole.commandTable(for: AgentControl(agent: agent, stop: {}))

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

    /// Issue 12: `sync` and `status` say the state in words — never a raw enum like `notConfigured` — and
    /// `sync` lists what the last run refused; `--json` keeps `phase` a stable word and adds the words.
    @Test func syncSaysItsStateAndItsRefusalsInWords() throws {
        let world = try KeySyncWorld()
        let tek = TemporaryExposureKey(keyData: Bytes16.random(), rollingStart: world.keyDay)
        world.publish(world.export([DiagnosisKey(tek: tek, transmissionRiskLevel: 4)]), at: "one.zip")
        world.publish(world.export(world.strangers(3), signer: world.impostor), at: "forged.zip")
        world.publishIndex(["bad line.zip", "forged.zip", "one.zip"])
        var settings = Agent.Settings()
        settings.clockPolicy = .trusted
        settings.configuration = try Configuration(parsing: world.configurationText([]))
        let board = VirtualBoard(loop: world.loop, phones: 0, log: .silent)
        let agent = try Agent(loop: world.loop, settings: settings, log: .silent, dataDirectory: world.folder.path + "/agent",
                              makeTransport: { board.makeAgentTransport() })
        agent.attach(network: try HTTPClient(loop: world.loop))
        agent.start()
        let table = AgentConsole.commandTable(for: AgentControl(agent: agent, stop: {}))
        func text(_ command: String) -> String {
            if case .text(let line)? = reply(table.execute(command, channel: .socket)) { return line }
            return ""
        }
        func json(_ command: String) throws -> [String: Any] {
            guard case .json(let document)? = reply(table.execute(command + " --json", channel: .socket)) else { return [:] }
            return try #require(JSONSerialization.jsonObject(with: Data(document.utf8)) as? [String: Any])
        }

        #expect(text("sync") == "not configured (no key server in keyserver.*)")
        #expect(text("status").contains("key sync     not configured (no key server in keyserver.*)"))
        #expect(try json("sync")["phase"] as? String == "notConfigured")

        try agent.setConfiguration("keyserver.style", to: "folder")
        try agent.setConfiguration("keyserver.base_url", to: "file://\(world.root)")
        guard case .deferred(let answer)? = reply(table.execute("sync now", channel: .socket)) else {
            throw TestFailure("sync now answers later")
        }
        var done: ConsoleReply?
        answer.attach { done = $0 }
        #expect(world.loop.run(until: { done != nil }))
        let lines = text("sync").split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("idle, last success ") == true, "\(lines)")
        #expect(lines.dropFirst().first == "last sync: 3 new of 3 listed, 1 processed, 1 rejected, 1 skipped, "
                + "1 keys, 0 matched, 0 new exposure(s), \(world.syncedBytes(["forged.zip", "one.zip"])) bytes")
        #expect(lines.contains("  bad line.zip: skipped, malformed index line (a relative path of printable ASCII without "
                               + "spaces, a leading '/' or '..' is expected)"))
        #expect(lines.contains("  forged.zip: rejected, signature by 999-v1 does not verify"))
        let document = try json("sync")
        #expect(document["phase"] as? String == "idle" && document["state"] as? String == "idle")
        let lastRun = try #require(document["lastRun"] as? [String: Any])
        #expect(lastRun["outcome"] as? String == "succeeded" && (lastRun["refusals"] as? [String])?.count == 2)
        agent.stop()
    }
}
