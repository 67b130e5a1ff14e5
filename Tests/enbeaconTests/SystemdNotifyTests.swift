import Foundation
import Testing

/// `enbeacon run` under a NOTIFY_SOCKET of the test's own, as systemd would start it (Type=notify,
/// WatchdogSec=2): READY=1, STATUS=, and WATCHDOG=1 from the event loop, which stop when the loop is stuck.
@Suite struct SystemdNotifyTests {
    @Test("READY=1 once the controller is up and the clock trusted, WATCHDOG=1 at least every second, none once the loop is blocked")
    func readyStatusAndWatchdogFromTheLoop() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("enbeacon-notify-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let receiver = try DatagramReceiver(path: dir + "/notify.sock")

        let agent = Process()
        agent.executableURL = Enbeacon.binary
        agent.arguments = ["run", "--data", dir + "/data", "--console", "none"]
        var environment = ProcessInfo.processInfo.environment
        environment["NOTIFY_SOCKET"] = receiver.path
        environment["WATCHDOG_USEC"] = "2000000"
        environment["ENBEACON_TEST_STALL_ON_SIGUSR1"] = "1"
        agent.environment = environment
        agent.standardError = FileHandle.nullDevice
        agent.standardOutput = FileHandle.nullDevice
        try agent.run()
        defer { if agent.isRunning { kill(agent.processIdentifier, SIGKILL); agent.waitUntilExit() } }

        // The virtual board: an in-process controller and a trusted clock, so ready within seconds.
        var messages: [(time: Date, text: String)] = []
        let readyDeadline = Date().addingTimeInterval(30)
        while !messages.contains(where: { $0.text.contains("READY=1") }), Date() < readyDeadline {
            messages += receiver.receive(for: 0.5)
        }
        let ready = try #require(messages.first { $0.text.contains("READY=1") }, "no READY=1: \(messages.map(\.text))")
        #expect(ready.text.contains("STATUS="), "\(ready.text)")

        // Three seconds of pings: never more than a second apart.
        messages += receiver.receive(for: 3)
        let pings = messages.filter { $0.text.split(separator: "\n").contains("WATCHDOG=1") && $0.time >= ready.time }
        #expect(pings.count >= 3, "\(pings.count) pings in 3 s")
        let gaps = zip(pings, pings.dropFirst()).map { $1.time.timeIntervalSince($0.time) }
        #expect(gaps.allSatisfy { $0 <= 1.0 }, "gaps between pings: \(gaps)")
        #expect(messages.contains { $0.text.contains("STATUS=broadcasting and scanning") }, "\(messages.map(\.text))")

        // The loop blocked on purpose: the pings stop while the process lives on.
        let blocked = Date()
        kill(agent.processIdentifier, SIGUSR1)
        let after = receiver.receive(for: 3)
        #expect(agent.isRunning)
        let late = after.filter { $0.text.contains("WATCHDOG=1") && $0.time.timeIntervalSince(blocked) > 1.0 }
        #expect(late.isEmpty, "pings went on after the loop was blocked: \(late.map { $0.time.timeIntervalSince(blocked) })")
    }
}

/// A unix datagram socket bound at `path`, as systemd's notify socket is.
final class DatagramReceiver {
    let path: String
    private let fd: Int32

    init(path: String) throws {
        self.path = path
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, byte) in path.utf8.enumerated() { raw[i] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard fd >= 0, bound == 0 else { throw POSIXError(.EADDRNOTAVAIL) }
    }

    /// Every datagram that arrives within `seconds`, with its time of arrival.
    func receive(for seconds: TimeInterval) -> [(time: Date, text: String)] {
        var received: [(Date, String)] = []
        let deadline = Date().addingTimeInterval(seconds)
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else { break }
            var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, Int32(remaining * 1000) + 1) > 0 else { continue }
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 { received.append((Date(), String(decoding: buffer[0..<n], as: UTF8.self))) }
        }
        return received
    }

    deinit { close(fd) }
}
