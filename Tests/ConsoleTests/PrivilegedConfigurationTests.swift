@testable import AgentBase
@testable import Console
import Foundation
import Testing
@testable import Simulation
import TestSupport
@testable import Agent
import EventLoop

/// Keys that run programs or change what is trusted: consent on every channel, a log line that stands out,
/// and no command line (which may hold a token) in the log.
@Suite struct PrivilegedConfigurationTests {
    final class Badge {
        final class Lines { var all: [String] = [] }
        let directory = TemporaryDirectory()
        let simulation: Simulation
        let agent: Agent
        let table: CommandTable
        private let lines = Lines()
        var log: [String] { lines.all }

        init() throws {
            simulation = try Simulation(startUnixSeconds: Simulation.twoHoursBeforeMidnight, seed: 51, dataRoot: directory.path)
            var settings = Agent.Settings()
            settings.configurationFile = ConfigurationFile(path: directory.path + "/enbeacon.conf")
            let log = Logger(level: .info) { [lines] level, line in lines.all.append("\(level) \(line)") }
            agent = try simulation.addBadge("badge", at: .origin, settings: settings, log: log).agent
            table = AgentConsole.commandTable(for: AgentControl(agent: agent, stop: {}))
        }

        func answer(_ line: String, on channel: ConsoleChannel) -> String {
            switch table.execute(line, channel: channel) {
            case .reply(.text(let text), _), .reply(.json(let text), _): return text
            case .reply(.error(let message), _): return "error: " + message
            case .confirm(let question): return "asks: " + question.prompt
            default: return "?"
            }
        }
    }

    @Test func notifyCommandWithoutYesOverTheSocketIsRefusedAndNothingChanges() throws {
        let badge = try Badge()
        #expect(badge.answer("config set notify.command 'touch /tmp/owned'", on: .socket)
                == "error: config set notify.command needs consent: add --yes (on a terminal the console asks instead)")
        #expect(badge.answer("config set notify.command 'touch /tmp/owned'", on: .pipe)
                == "error: config set notify.command needs consent: add --yes (on a terminal the console asks instead)")
        #expect(badge.agent.configuration[.notifyCommand] == "")
        #expect(!FileManager.default.fileExists(atPath: badge.directory.path + "/enbeacon.conf"), "the file was not written")

        let pem = badge.directory.path + "/other.pem"
        #expect(badge.answer("config set keyserver.public_key \(pem)", on: .socket)
                == "error: config set keyserver.public_key needs consent: add --yes (on a terminal the console asks instead)")
        #expect(badge.answer("config set keyserver.ca_file /etc/ssl/evil.pem", on: .socket).hasPrefix("error: config set keyserver.ca_file needs consent"))
        #expect(badge.log.allSatisfy { !$0.contains("config:") }, "\(badge.log)")

        // An ordinary key needs nothing.
        #expect(badge.answer("config set risk.threshold 9", on: .socket) == "risk.threshold = 9")
        #expect(badge.log.contains("info config: risk.threshold = 9"))
    }

    @Test func aNamedKeyServersTrustNeedsConsentAsTheDefaultsDoes() throws {
        let badge = try Badge()
        #expect(badge.answer("config set keyserver.eur.public_key /etc/evil.pem", on: .socket)
                == "error: config set keyserver.eur.public_key needs consent: add --yes (on a terminal the console asks instead)")
        #expect(badge.answer("config set keyserver.eur.ca_file /etc/ssl/evil.pem", on: .pipe)
            .hasPrefix("error: config set keyserver.eur.ca_file needs consent"))
        #expect(badge.agent.configuration.keyServerNames.isEmpty, "nothing was set")
        // The server's other settings are tuning, as the default server's are.
        #expect(badge.answer("config set keyserver.eur.key_id EUR-1", on: .socket) == "keyserver.eur.key_id = EUR-1")
    }

    @Test func withYesItIsSetAndLoggedWithoutTheCommandLine() throws {
        let badge = try Badge()
        #expect(badge.answer("config set notify.command 'curl -H \"Authorization: Bearer s3cret\" https://x' --yes", on: .socket)
                == #"notify.command = curl -H "Authorization: Bearer s3cret" https://x"#)
        #expect(badge.agent.configuration[.notifyCommand] == #"curl -H "Authorization: Bearer s3cret" https://x"#)
        #expect(badge.log.contains("warn config: notify.command changed (the value is not logged), set through enbeacon ctl with --yes; "
                                   + "privileged: it runs a program for every exposure"), "\(badge.log)")
        #expect(badge.log.allSatisfy { !$0.contains("s3cret") })
    }

    @Test func onTheTerminalTheQuestionNamesTheKey() throws {
        let badge = try Badge()
        #expect(badge.answer("config set notify.command 'logger exposure'", on: .terminal)
                == "asks: config set notify.command: type yes to confirm: ")
        #expect(badge.answer("config set risk.threshold 4", on: .terminal) == "risk.threshold = 4")
        guard case .confirm(let question) = badge.table.execute("config set notify.command 'logger exposure'", channel: .terminal) else {
            throw TestFailure("no question")
        }
        guard case .reply(.text(let text), _) = question.answer("yes") else { throw TestFailure("not set") }
        #expect(text == "notify.command = logger exposure")
        #expect(badge.log.last?.hasSuffix("set on the console, confirmed; privileged: it runs a program for every exposure") == true)
    }
}
