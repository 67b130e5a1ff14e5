import Foundation
import Testing

/// Nobody can lock staff out of a running agent's console: idle connections give way, and the agent's own
/// console (stdin or a serial line) is never one of the socket's connections.
@Suite struct ConsoleFairnessTests {
    /// Before, the first 8 idle connections took every slot and `ctl status` was refused as busy.
    @Test func twentyIdleConnectionsKeepNeitherCtlNorTheOwnConsoleOut() throws {
        let agent = try RunningAgent(pipedConsole: true)
        defer { try? FileManager.default.removeItem(atPath: agent.directory) }
        var idle: [Int32] = []
        defer { idle.forEach { close($0) } }
        for _ in 0..<20 {
            let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            try #require(Self.connect(fd, to: agent.data + "/console.sock"))
            idle.append(fd)
        }

        let status = try agent.ctl(["status"])
        #expect(status.status == 0, "stderr: \(status.stderr)")
        #expect(status.stdout.contains("broadcasting yes"))

        agent.process.writeInput(Array("status\n".utf8))
        try agent.process.wait(for: "status on the agent's stdin", timeout: 10) {
            agent.process.stdout.contains("broadcasting yes")
        }

        // The first idle connection made room for a later one, and was told why.
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(idle[0], SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var answer = [UInt8](repeating: 0, count: 512)
        let count = answer.withUnsafeMutableBytes { recv(idle[0], $0.baseAddress, $0.count, 0) }
        #expect(String(decoding: answer.prefix(max(count, 0)), as: UTF8.self)
                == "error\nclosed: 8 console connections were open and this one had sent no command\n")
    }

    /// Issue 23, finding 3: five `live` readers that never read hold five of the eight places, and twenty clients
    /// reconnect the moment they are closed and never send. `ctl status` is answered every time: its line is
    /// in the socket, so it is not the idle connection that gives way (it used to be evicted as one).
    @Test func reconnectingIdleClientsAndStuckLiveReadersNeverRefuseCtl() throws {
        let agent = try RunningAgent(pipedConsole: false)
        defer { try? FileManager.default.removeItem(atPath: agent.directory) }
        let path = agent.data + "/console.sock"
        var live: [Int32] = []
        defer { live.forEach { close($0) } }
        for _ in 0..<5 {
            let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            try #require(Self.connect(fd, to: path))
            _ = "live\n".withCString { send(fd, $0, 5, Int32(MSG_NOSIGNAL)) }
            live.append(fd)
        }
        let crowd = ReconnectingCrowd(path: path, count: 20)
        crowd.start()
        defer { crowd.stop() }
        // Until the crowd has been closed and come back many times over: the pressure is on.
        let deadline = Date().addingTimeInterval(20)
        while crowd.reconnections < 40 && Date() < deadline { usleep(10_000) }
        #expect(crowd.reconnections >= 40, "the idle clients were being closed to make room")

        var answered = 0
        for attempt in 1...10 {
            let status = try agent.ctl(["status"])
            #expect(status.status == 0, "try \(attempt): \(status.stderr)")
            if status.status == 0 && status.stdout.contains("broadcasting yes") { answered += 1 }
        }
        #expect(answered == 10)
        print("console fairness: ctl status answered \(answered) of 10 times while 20 idle clients reconnected "
              + "\(crowd.reconnections) times beside 5 stuck live readers")
    }

    static func connect(_ fd: Int32, to path: String) -> Bool {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        } == 0
    }
}

/// Clients that connect, never send, and come back the moment they are closed, on a thread of their own.
final class ReconnectingCrowd: @unchecked Sendable {
    private let path: String
    private let count: Int
    private let lock = NSLock()
    private var stopping = false
    private var reconnected = 0
    private var thread: Thread?
    private let done = DispatchSemaphore(value: 0)

    init(path: String, count: Int) {
        self.path = path
        self.count = count
    }

    var reconnections: Int { lock.withLock { reconnected } }

    func start() {
        let thread = Thread { [self] in run() }
        self.thread = thread
        thread.start()
    }

    func stop() {
        guard thread != nil else { return }
        lock.withLock { stopping = true }
        done.wait()
        thread = nil
    }

    private func connectOne() -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        _ = ConsoleFairnessTests.connect(fd, to: path)
        return fd
    }

    private func run() {
        var fds = (0..<count).map { _ in connectOne() }
        var buffer = [UInt8](repeating: 0, count: 512)
        while !lock.withLock({ stopping }) {
            var polls = fds.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            guard poll(&polls, nfds_t(polls.count), 50) > 0 else { continue }
            for (i, p) in polls.enumerated() where p.revents != 0 {
                // Told why it was closed (or not), then the end: straight back in.
                let n = buffer.withUnsafeMutableBytes { recv(fds[i], $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
                if n > 0 { continue }
                close(fds[i])
                fds[i] = connectOne()
                lock.withLock { reconnected += 1 }
            }
        }
        fds.forEach { close($0) }
        done.signal()
    }
}
