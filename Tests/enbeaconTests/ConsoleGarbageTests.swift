import Foundation
import Testing

/// Garbage is harmless: 1 MB of random bytes, or one 10 MB line, on the agent's console (stdin pipe) and
/// on its unix socket, and afterwards it still advertises and answers `status` on both.
@Suite struct ConsoleGarbageTests {
    /// Sends `bytes` to DIR/console.sock over as many connections as the server's line limit needs.
    func sendToSocket(_ path: String, _ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else { return }
            if connect(fd, toUnixSocket: path) {
                let chunk = Array(bytes[offset..<min(bytes.count, offset + 64 * 1024)])
                _ = chunk.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                // Like a real client: stop sending, then read until the agent closes the connection, so
                // the next one does not find every console slot still taken (the server caps them at 8).
                shutdown(fd, Int32(SHUT_WR))
                var timeout = timeval(tv_sec: 10, tv_usec: 0)
                setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
                var sink = [UInt8](repeating: 0, count: 4096)
                while sink.withUnsafeMutableBytes({ recv(fd, $0.baseAddress, $0.count, 0) }) > 0 {}
            }
            close(fd)
            offset += 64 * 1024
        }
    }

    /// A line of 10 MB costs one error line and no memory: the console keeps 4 KiB of a line at most.
    @Test func tenMegabyteLinesOnTheConsoleAndTheSocketAreRefusedWithoutGrowingTheAgent() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("enbeacon-longline-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let agent = try ChildProcess(executable: Enbeacon.binary.path,
                                     arguments: ["run", "--data", dir, "--seconds", "90", "--console", "stdin"],
                                     name: "agent", input: .pipe)
        defer { agent.stop() }
        try agent.wait(for: "the controller", timeout: 30) { agent.stderr.contains("controller ready") }
        let before = try #require(peakResidentKiB(agent.processIdentifier))

        let line = [UInt8](repeating: UInt8(ascii: "a"), count: 10 << 20)
        agent.writeInput(line + Array("\nstatus\n".utf8))
        // The same on one socket connection, as far as the agent reads before it answers and hangs up.
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        try #require(connect(fd, toUnixSocket: dir + "/console.sock"))
        var sent = 0
        while sent < line.count {
            let n = line[sent...].withUnsafeBytes { send(fd, $0.baseAddress, min($0.count, 1 << 16), Int32(MSG_NOSIGNAL)) }
            if n <= 0 { break }
            sent += n
        }
        var answer = [UInt8](repeating: 0, count: 4096)
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let got = answer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        close(fd)
        #expect(got > 0 && String(decoding: answer.prefix(max(got, 0)), as: UTF8.self).contains("too long"),
                "the socket answers a refusal; got \(got) bytes after sending \(sent)")

        try agent.wait(for: "the status answer after the long line", timeout: 30) { agent.stdout.contains("broadcasting yes") }
        #expect(agent.stdout.hasPrefix("error: line too long (more than 4096 bytes), discarded\n"), "\(agent.stdout.prefix(200))")
        let status = try Enbeacon.run(["ctl", "--data", dir, "--json", "status"])
        #expect(status.status == 0 && status.stdout.contains("\"advertising\":true"))
        let after = try #require(peakResidentKiB(agent.processIdentifier))
        expectMemory(after - before < 2048, "peak RSS grew from \(before) KiB to \(after) KiB, by under 2,048 KiB")
    }

    /// Connects `fd` to the unix socket at `path`; false when that fails.
    func connect(_ fd: Int32, toUnixSocket path: String) -> Bool {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, b) in path.utf8.prefix(raw.count - 1).enumerated() { raw[i] = b }
        }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        } == 0
    }

    /// VmHWM of a process, in KiB.
    func peakResidentKiB(_ pid: Int32) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }) else { return nil }
        return Int(line.split(separator: " ").dropFirst().first ?? "")
    }

    @Test func randomBytesOnTheConsoleAndTheSocketChangeNothing() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("enbeacon-garbage-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let agent = Process()
        agent.executableURL = Enbeacon.binary
        agent.arguments = ["run", "--data", dir, "--seconds", "90", "--console", "stdin"]
        let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
        agent.standardInput = stdin
        agent.standardOutput = stdout
        agent.standardError = stderr
        try agent.run()
        defer { if agent.isRunning { agent.terminate() } }
        var log = ""
        let deadline = Date().addingTimeInterval(30)
        while !log.contains("controller ready"), Date() < deadline {
            let chunk = stderr.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            log += String(decoding: chunk, as: UTF8.self)
        }
        #expect(log.contains("controller ready"))

        var rng = SystemRandomNumberGenerator()
        let garbage = (0..<(1 << 20)).map { _ in UInt8.random(in: 0...255, using: &rng) }
        // Written from another thread: the agent answers (error lines) while it reads, and both pipes must flow.
        let output = OutputCollector(stdout.fileHandleForReading)
        stdin.fileHandleForWriting.write(Data(garbage))
        stdin.fileHandleForWriting.write(Data("\nstatus\n".utf8))
        sendToSocket(dir + "/console.sock", garbage)

        let status = try Enbeacon.run(["ctl", "--data", dir, "--json", "status"])
        #expect(status.status == 0, "stderr: \(status.stderr)")
        let document = try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any]
        #expect(document?["controller"] as? String == "ready")
        #expect(document?["advertising"] as? Bool == true)

        try stdin.fileHandleForWriting.close()
        kill(agent.processIdentifier, SIGTERM)
        agent.waitUntilExit()
        #expect(agent.terminationStatus == 0)
        #expect(output.text().contains("broadcasting yes, RPI on air"), "the console answered status after the garbage")
    }
}

/// Reads a pipe to its end on a background thread, so the child never blocks on a full pipe.
final class OutputCollector: @unchecked Sendable {
    private var data = Data()
    private let done = DispatchSemaphore(value: 0)
    init(_ handle: FileHandle) {
        Thread {
            self.data = handle.readDataToEndOfFile()
            self.done.signal()
        }.start()
    }
    func text() -> String {
        done.wait()
        return String(decoding: data, as: UTF8.self)
    }
}
