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
}
