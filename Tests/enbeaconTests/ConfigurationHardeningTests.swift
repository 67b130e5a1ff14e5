import Foundation
import Testing

/// What the running agent does with hostile or awkward configuration: paths that could freeze it, config
/// files written on other systems, and keys that run programs or change the trust anchor.
@Suite struct ConfigurationHardeningTests {
    /// Before, the agent opened the FIFO and waited in `open` for a writer that never came: the radio, the
    /// console and the socket all froze.
    @Test func aFIFOAsRiskConfigIsRefusedAtOnceAndTheAgentAnswersOn() throws {
        let agent = try RunningAgent()
        defer { try? FileManager.default.removeItem(atPath: agent.directory) }
        let fifo = agent.directory + "/risk.fifo"
        #expect(mkfifo(fifo, 0o600) == 0)
        let started = Date()
        let set = try agent.ctl(["config", "set", "risk.config", fifo])
        #expect(Date().timeIntervalSince(started) < 5)
        #expect(set.status == 1)
        #expect(set.stderr == "enbeacon ctl: risk.config: cannot read \(fifo): is a FIFO, not a regular file\n")
        let get = try agent.ctl(["config", "get", "risk.config"])
        #expect(get.status == 0 && get.stdout.isEmpty, "nothing changed: still not configured")
        let status = try agent.ctl(["status"])
        #expect(status.status == 0 && status.stdout.contains("broadcasting yes"))
    }

    /// Anyone who can reach the socket could make the badge run a program for every exposure; it takes --yes,
    /// as revealing keys does, and is logged.
    @Test func notifyCommandWithoutYesOverTheSocketIsRefusedAndNothingChanges() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("enbeacon-notify-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let config = directory + "/enbeacon.conf"
        try "risk.threshold = 5\n".write(toFile: config, atomically: false, encoding: .utf8)
        let agent = try RunningAgent(config: config, directory: directory)

        let refused = try agent.ctl(["config", "set", "notify.command", "touch \(directory)/owned"])
        #expect(refused.status == 1)
        #expect(refused.stderr == "enbeacon ctl: config set notify.command needs consent: add --yes (on a terminal the console asks instead)\n")
        #expect(try agent.ctl(["config", "get", "notify.command"]).stdout.isEmpty)
        #expect(try String(contentsOfFile: config, encoding: .utf8) == "risk.threshold = 5\n")
        #expect(!agent.process.stderr.contains("notify.command"))

        let accepted = try agent.ctl(["config", "set", "notify.command", "logger -t enbeacon exposure", "--yes"])
        #expect(accepted.status == 0 && accepted.stdout == "notify.command = logger -t enbeacon exposure\n")
        try agent.process.wait(for: "the log line", timeout: 10) {
            agent.process.stderr.contains("warn config: notify.command changed (the value is not logged), "
                                          + "set through enbeacon ctl with --yes; privileged: it runs a program for every exposure")
        }
    }

    static let publicKey = """
        -----BEGIN PUBLIC KEY-----
        MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEBuPHFK6IixHM/Um1RWIIpXUxhOED
        89oxJM59BKYrbDCI/CBrxgHxbluXchwyy100jmVsNhyDicZwRvaTvuUq/w==
        -----END PUBLIC KEY-----

        """

    /// A config file from a Windows editor, with a `#fragment` in a URL, survives `config set`, a reload
    /// (SIGHUP) and a restart: every value reads back as written. Before, the CRLF file was one long line
    /// and the agent refused to start; an LF file lost the fragment at the first restart.
    @Test func crlfAndHashConfigsRoundTripThroughConfigSetReloadAndRestart() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("enbeacon-crlf-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let pem = directory + "/keyserver.pem"
        try Self.publicKey.write(toFile: pem, atomically: false, encoding: .utf8)
        let config = directory + "/enbeacon.conf"
        let lines = ["\u{FEFF}# badge 7, written on Windows",
                     "keyserver.index_url = https://keys.example.org/v1/index.txt#frag   # the CDN",
                     "keyserver.public_key = \(pem)",
                     "keyserver.key_id = 310",
                     "risk.threshold = 5"]
        try Data((lines.joined(separator: "\r\n") + "\r\n").utf8).write(to: URL(fileURLWithPath: config))
        let expected = [
            "keyserver.index_url": "https://keys.example.org/v2/index.txt#frag2",
            "notify.command": "logger -t enbeacon #1",
            "keyserver.key_id": "310",
            "risk.threshold": "5",
        ]
        func expectValues(_ agent: RunningAgent, _ when: String) throws {
            for (key, value) in expected {
                let get = try agent.ctl(["config", "get", key])
                #expect(get.status == 0 && get.stdout == value + "\n", "\(when): \(key) is '\(get.stdout)' \(get.stderr)")
            }
        }

        do {
            let agent = try RunningAgent(config: config, directory: directory)
            let get = try agent.ctl(["config", "get", "keyserver.index_url"])
            #expect(get.stdout == "https://keys.example.org/v1/index.txt#frag\n")
            #expect(try agent.ctl(["config", "set", "keyserver.index_url", expected["keyserver.index_url"]!]).status == 0)
            let set = try agent.ctl(["config", "set", "notify.command", expected["notify.command"]!, "--yes"])
            #expect(set.status == 0, "\(set.stderr)")
            try expectValues(agent, "after config set")
            agent.process.send(SIGHUP)
            try agent.process.wait(for: "the reload", timeout: 10) { agent.process.stderr.contains("SIGHUP: reloaded") }
            #expect(agent.process.stderr.contains("SIGHUP: reloaded \(config), no value changed"))
            try expectValues(agent, "after the reload")
            agent.stop()
        }
        let restarted = try RunningAgent(config: config, directory: directory)
        try expectValues(restarted, "after a restart")
        restarted.stop()

        let text = String(decoding: try #require(FileManager.default.contents(atPath: config)), as: UTF8.self)
        #expect(text == (lines[0...0] + ["keyserver.index_url = https://keys.example.org/v2/index.txt#frag2   # the CDN"]
                         + lines[2...] + [#"notify.command = "logger -t enbeacon #1""#]).joined(separator: "\r\n") + "\r\n")
    }
}
