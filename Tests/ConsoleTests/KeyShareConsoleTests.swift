@testable import AgentBase
@testable import Console
@testable import Agent
import EventLoop
import Foundation
@testable import Simulation
import Testing
import TestSupport

/// `keys share`, `keys share status`, `keys share cancel` in the command table, and the share.* keys: three-word
/// commands, help and completion, what a badge without the health authority's settings says, and the API key
/// never shown or logged. (The flow against real servers: AgentTests/KeyShareEndToEndTests.)
@Suite struct KeyShareConsoleTests {
    final class Badge {
        final class Lines { var all: [String] = [] }
        let directory = TemporaryDirectory()
        let simulation: Simulation
        let agent: Agent
        let table: CommandTable
        private let lines = Lines()
        var log: [String] { lines.all }

        init() throws {
            simulation = try Simulation(startUnixSeconds: Simulation.twoHoursBeforeMidnight, seed: 52, dataRoot: directory.path)
            var settings = Agent.Settings()
            settings.configurationFile = ConfigurationFile(path: directory.path + "/enbeacon.conf")
            let log = Logger(level: .debug) { [lines] level, line in lines.all.append("\(level) \(line)") }
            agent = try simulation.addBadge("badge", at: .origin, settings: settings, log: log).agent
            table = AgentConsole.commandTable(for: AgentControl(agent: agent, stop: {}))
        }

        func answer(_ line: String, on channel: ConsoleChannel = .socket) -> String {
            switch table.execute(line, channel: channel) {
            case .reply(.text(let text), _), .reply(.json(let text), _): return text
            case .reply(.error(let message), _): return "error: " + message
            case .confirm(let question): return "asks: " + question.prompt
            default: return "?"
            }
        }
    }

    @Test func threeWordCommandsResolveListAndComplete() throws {
        let badge = try Badge()
        #expect(badge.answer("keys share status").hasPrefix("state        not configured: share.verification_url, "))
        #expect(badge.answer("keys share status --json").hasPrefix(#"{"phase":"notConfigured","#))
        #expect(badge.answer("keys share cancel") == "error: keys share cancel needs consent: add --yes (on a terminal the console asks instead)")
        #expect(badge.answer("keys share cancel", on: .terminal) == "asks: keys share cancel: type yes to confirm: ")
        #expect(badge.answer("keys share cancel --yes") == "error: no share is under way")
        #expect(badge.answer("keys share status extra") == "error: usage: keys share status")
        #expect(badge.answer("keys share --yes") == "error: usage: keys share CODE [--test-date YYYY-MM-DD] [--symptom-onset YYYY-MM-DD] [--yes]")
        #expect(badge.answer("keys share 12345678 --test-date yesterday --yes")
                == "error: usage: keys share CODE [--test-date YYYY-MM-DD] [--symptom-onset YYYY-MM-DD] [--yes] (--test-date: expected YYYY-MM-DD)")
        let help = badge.answer("help")
        #expect(help.contains("  keys share status ") && help.contains("  keys share cancel ") && help.contains("  keys share "))
        #expect(badge.answer("help keys share status").hasPrefix("usage: keys share status\n"))
        #expect(badge.answer("help keys share").contains("keys share status follows the share; keys share cancel ends it."))
        // A command that heads a group lists the group: `help keys` alone used to hide export and share.
        let keysHelp = badge.answer("help keys")
        #expect(keysHelp.hasPrefix("usage: keys "), "\(keysHelp)")
        for name in ["keys export", "keys share", "keys share status", "keys share cancel"] {
            #expect(keysHelp.contains("\n  \(name) "), "\(name) in \(keysHelp)")
        }
        #expect(badge.answer("help keys share").contains("\n  keys share status "))
        #expect(badge.answer("help sync").contains("\n  sync now "))
        #expect(badge.table.completions(forLinePrefix: "keys sh").candidates == ["share"])
        #expect(badge.table.completions(forLinePrefix: "keys share ").candidates == ["cancel", "status"])
        #expect(badge.table.completions(forLinePrefix: "keys share 1234 --").candidates.contains("--test-date"))
    }

    @Test func aBadgeWithoutTheSettingsSaysWhichAreMissingAndSendsNothing() throws {
        let badge = try Badge()
        #expect(badge.answer("keys share 12345678 --yes") == "error: keys share needs share.verification_url, share.api_key, "
                + "share.publish_url and share.health_authority_id (the health authority gives them): set them with config set")
        _ = badge.answer("config set share.verification_url http://127.0.0.1:9/ --yes")
        _ = badge.answer("config set share.publish_url http://127.0.0.1:9/v1/publish --yes")
        _ = badge.answer("config set share.health_authority_id ha --yes")
        #expect(badge.answer("keys share 12345678 --yes") == "error: keys share needs share.api_key (the health authority gives "
                + "them): set it with config set")
        #expect(badge.answer("status").contains("\nkey share    not configured: share.api_key has no value\n"))
        #expect(badge.answer("keys share 12-34 --yes") == "error: keys share needs share.api_key (the health authority gives "
                + "them): set it with config set", "the settings are checked first")
    }

    @Test func theAPIKeyIsPrivilegedAndNeverShownOrLogged() throws {
        let badge = try Badge()
        let secret = "s3cr3t-Api-Key"
        #expect(badge.answer("config set share.api_key \(secret)")
                == "error: config set share.api_key needs consent: add --yes (on a terminal the console asks instead)")
        #expect(badge.answer("config set share.api_key \(secret) --yes") == "share.api_key = (set, redacted)")
        #expect(badge.agent.configuration[.shareAPIKey] == secret)
        #expect(try String(contentsOfFile: badge.directory.path + "/enbeacon.conf", encoding: .utf8).contains("share.api_key = \(secret)"))
        #expect(badge.answer("config get share.api_key") == "(set, redacted)")
        let json = badge.answer("config get share.api_key --json")
        #expect(json.contains(#""value":"(set, redacted)""#) && json.contains(#""redacted":true"#))
        #expect(badge.answer("config list").contains("share.api_key = (set, redacted)\n"))
        #expect(badge.log.contains("warn config: share.api_key changed (the value is not logged), set through enbeacon ctl "
                                   + "with --yes; privileged: it is the health authority's credential"))
        #expect(badge.answer("config set share.api_key 'has space' --yes") == "error: share.api_key: expected printable ASCII "
                + "without spaces, or empty, got a value of 9 characters that is not (not shown)")
        for line in ["config list", "config list --json", "config get share.api_key", "status --json", "keys share status --json"] {
            #expect(!badge.answer(line).contains(secret), "\(line) shows the API key")
        }
        #expect(!badge.log.contains { $0.contains(secret) }, "the API key is never logged")
        // Where codes and keys go is privileged too.
        #expect(badge.answer("config set share.publish_url http://elsewhere/v1/publish").hasPrefix("error: config set share.publish_url needs consent"))
        #expect(badge.answer("config set share.verification_url http://elsewhere").hasPrefix("error: config set share.verification_url needs consent"))
        #expect(badge.answer("config set share.health_authority_id ha") == "share.health_authority_id = ha")
    }
}
