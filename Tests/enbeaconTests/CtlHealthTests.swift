import Foundation
import Testing

/// `enbeacon ctl health` decides by its exit status, as update agents and monitoring read it.
@Suite struct CtlHealthTests {
    @Test func healthyExitsZeroAndAFailingCheckExitsOneSayingWhich() throws {
        let agent = try RunningAgent()
        defer { try? FileManager.default.removeItem(atPath: agent.directory) }
        try agent.process.wait(for: "the first scan", timeout: 30) { agent.process.stderr.contains("scan heard") }
        let healthy = try agent.ctl(["health"])
        #expect(healthy.status == 0, "\(healthy.stderr)")
        #expect(healthy.stdout == "healthy: broadcasting, scanning, clock, storage, keysync pass\n")

        #expect(try agent.ctl(["en", "off"]).status == 0)
        let off = try agent.ctl(["health"])
        #expect(off.status == 1)
        #expect(off.stderr == "enbeacon ctl: unhealthy: 1 of 5 checks fail\n"
                + "broadcasting: exposure notification is switched off (en on)\n")
        let json = try agent.ctl(["health", "--json"])
        #expect(json.status == 1)
        #expect(json.stderr == #"{"healthy":false,"failing":[{"check":"broadcasting","reason":"exposure notification is switched off (en on)"}]}"#
                + "\n")
    }
}
