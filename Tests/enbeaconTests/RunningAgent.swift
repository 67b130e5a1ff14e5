import Foundation

/// An agent on the virtual board, run for a test, with `enbeacon ctl` calls that fail instead of hanging.
final class RunningAgent {
    let directory: String
    let process: ChildProcess
    var data: String { directory + "/data" }

    /// `pipedConsole`: the console on a stdin pipe the test writes (`process.writeInput`).
    init(config: String? = nil, directory: String? = nil, pipedConsole: Bool = false, extraArguments: [String] = []) throws {
        self.directory = directory
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("enbeacon-agent-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: self.directory, withIntermediateDirectories: true)
        var arguments = ["run", "--data", self.directory + "/data", "--seconds", "120", "--console", pipedConsole ? "stdin" : "none"]
        if let config { arguments += ["--config", config] }
        arguments += extraArguments
        process = try ChildProcess(executable: Enbeacon.binary.path, arguments: arguments, name: "agent",
                                   input: pipedConsole ? .pipe : .null)
        try process.wait(for: "the controller", timeout: 30) { process.stderr.contains("controller ready") }
    }

    deinit {
        process.stop()
    }

    /// Stops the agent (SIGTERM) and waits for it to exit.
    func stop() {
        process.stop()
    }

    /// `enbeacon ctl` on this agent; throws when ctl has not finished within `timeout` seconds.
    func ctl(_ words: [String], timeout: TimeInterval = 10) throws -> (status: Int32, stdout: String, stderr: String) {
        let ctl = try ChildProcess(executable: Enbeacon.binary.path, arguments: ["ctl", "--data", data] + words, name: "ctl")
        defer { ctl.stop() }
        guard let status = ctl.waitForExit(timeout: timeout) else {
            throw SessionError("enbeacon ctl \(words.joined(separator: " ")) did not finish within \(Int(timeout)) s")
        }
        return (status, ctl.stdout, ctl.stderr)
    }
}
