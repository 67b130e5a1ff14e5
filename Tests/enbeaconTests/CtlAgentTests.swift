import Foundation
import Testing

/// `enbeacon ctl` against a running agent on the virtual board.
@Suite struct CtlAgentTests {
    @Test func statusConfigAndRefusalsThroughTheSocket() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("enbeacon-ctl-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let agent = Process()
        agent.executableURL = Enbeacon.binary
        agent.arguments = ["run", "--data", dir, "--seconds", "60", "--console", "none"]
        let stderr = Pipe()
        agent.standardError = stderr
        agent.standardInput = FileHandle.nullDevice
        try agent.run()
        defer { if agent.isRunning { agent.terminate() } }
        var log = ""
        let deadline = Date().addingTimeInterval(30)
        while !log.contains("controller ready"), Date() < deadline {
            let chunk = stderr.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            log += String(decoding: chunk, as: UTF8.self)
        }

        let status = try Enbeacon.run(["ctl", "--data", dir, "--json", "status"])
        #expect(status.status == 0, "stderr: \(status.stderr)")
        let document = try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any]
        #expect((document?["clock"] as? [String: Any])?["trusted"] as? Bool == true)
        #expect(document?["controller"] as? String == "ready")

        let set = try Enbeacon.run(["ctl", "--data", dir, "config", "set", "risk.threshold", "9999"])
        #expect(set.status == 1)
        #expect(set.stderr.contains("risk.threshold: expected 0-4096"))
        let get = try Enbeacon.run(["ctl", "--data", dir, "config", "get", "risk.threshold"])
        #expect(get.stdout == "1\n", "a refused value changes nothing")

        let quit = try Enbeacon.run(["ctl", "--data", dir, "quit"])
        #expect(quit.status == 1 && agent.isRunning, "quit is refused on the socket")

        let keys = try Enbeacon.run(["ctl", "--data", dir, "keys"])
        #expect(keys.status == 0 && keys.stdout.contains("(redacted)"))

        kill(agent.processIdentifier, SIGTERM)
        agent.waitUntilExit()
        #expect(agent.terminationStatus == 0)
        let gone = try Enbeacon.run(["ctl", "--data", dir, "status"])
        #expect(gone.status == 1 && gone.stderr.contains("no agent is running"))
    }
}
