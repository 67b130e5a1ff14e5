import Foundation
import Testing

/// `enbeacon ctl` as scripts see it: against no agent, and against a stand-in that speaks the
/// console socket's framing (the end-to-end tests against a running agent live elsewhere).
@Suite struct CtlCommandTests {
    /// A directory for a socket; short, since a unix socket path must fit in 107 bytes.
    final class Directory {
        let path: String
        init() throws {
            path = "/tmp/enbeacon-ctl-\(UUID().uuidString.prefix(8))"
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        }
        deinit { try? FileManager.default.removeItem(atPath: path) }
    }

    /// Listens on DIR/console.sock on its own thread and gives each connection the next canned answer,
    /// recording the line it was sent. Every wait is bounded by a 10 s socket timeout.
    final class StandInConsole: @unchecked Sendable {
        private let listener: Int32
        private let lock = NSLock()
        private var lines: [String] = []
        private let finished = DispatchSemaphore(value: 0)

        init(directory: String, answers: [String]) throws {
            listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            let path = Array((directory + "/console.sock").utf8)
            withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: path) }
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            guard bound == 0, listen(listener, 4) == 0 else { throw POSIXError(.EADDRNOTAVAIL) }
            var timeout = timeval(tv_sec: 10, tv_usec: 0)
            setsockopt(listener, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            Thread { [self] in
                for answer in answers { serve(answer) }
                finished.signal()
            }.start()
        }

        deinit { close(listener) }

        private func serve(_ answer: String) {
            let fd = accept(listener, nil, nil)
            guard fd >= 0 else { return }
            defer { close(fd) }
            var timeout = timeval(tv_sec: 10, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            var line: [UInt8] = []
            var byte: UInt8 = 0
            while recv(fd, &byte, 1, 0) == 1 && byte != 0x0A { line.append(byte) }
            lock.withLock { lines.append(String(decoding: line, as: UTF8.self)) }
            _ = Array(answer.utf8).withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        }

        /// The lines received, once every answer was given (or the thread gave up).
        var received: [String] {
            _ = finished.wait(timeout: .now() + 15)
            return lock.withLock { lines }
        }
    }

    @Test func withNoAgentItSaysSoAndExitsOne() throws {
        let directory = try Directory()
        let result = try Enbeacon.run(["ctl", "--data", directory.path, "status"])
        #expect(result.status == 1)
        #expect(result.stderr == "enbeacon ctl: no agent is running on \(directory.path) (cannot connect to \(directory.path)/console.sock)\n")
        #expect(result.stdout == "")
    }

    @Test func usageErrorsExitTwoAndHelpExitsZero() throws {
        let missing = try Enbeacon.run(["ctl", "--data", "/tmp"])
        #expect(missing.status == 2)
        #expect(missing.stderrLines.count == 1)
        #expect(missing.stderr.hasPrefix("enbeacon ctl: missing COMMAND"))
        let unknown = try Enbeacon.run(["ctl", "--verbose", "status"])
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains("unknown option --verbose"))
        let help = try Enbeacon.run(["ctl", "--help"])
        #expect(help.status == 0)
        #expect(help.stdout.hasPrefix("usage: enbeacon ctl [--data DIR] [--json] [--timeout SECONDS] [--connect-timeout SECONDS] COMMAND [ARGS]"))
        #expect(try Enbeacon.run(["--help"]).stdout.contains("\n  ctl "))
    }

    @Test func theLineIsQuotedTheAnswerPrintedAndTheStatusLineDecidesTheExit() throws {
        let directory = try Directory()
        let console = try StandInConsole(directory: directory.path, answers: [
            "ok\n{\"set\":\"Room 12\"}\n",
            "error\nunknown command 'staus'; did you mean 'status'?\n",
            "ok\nrésumé ✓\nsecond line\n",
            "error\n{\"error\":\"no\"}\n",
            "HTTP/1.1 400 Bad Request\n",
        ])
        let json = try Enbeacon.run(["ctl", "--data", directory.path, "--json", "config", "set", "name", "Room 12"])
        #expect(json.status == 0)
        #expect(json.stdout == "{\"set\":\"Room 12\"}\n")

        let refused = try Enbeacon.run(["ctl", "--data", directory.path, "staus"])
        #expect(refused.status == 1)
        #expect(refused.stdout == "")
        #expect(refused.stderr == "enbeacon ctl: unknown command 'staus'; did you mean 'status'?\n")

        let text = try Enbeacon.run(["ctl", "--data=\(directory.path)", "keys", "--help"])
        #expect(text.status == 0)
        #expect(text.stdout == "résumé ✓\nsecond line\n")

        let jsonError = try Enbeacon.run(["ctl", "--data", directory.path, "--json", "wipe"])
        #expect(jsonError.status == 1)
        #expect(jsonError.stderr == "{\"error\":\"no\"}\n")

        let stranger = try Enbeacon.run(["ctl", "--data", directory.path, "status"])
        #expect(stranger.status == 1)
        #expect(stranger.stderr.hasSuffix("did not answer as the agent's console does\n"))

        #expect(console.received == [#"config set name "Room 12" --json"#, "staus", "keys --help", "wipe --json", "status"])
    }

    /// A socket at DIR/console.sock that never accepts, as a frozen agent's is.
    final class FrozenListener {
        let listener: Int32
        let path: String
        private var held: [Int32] = []

        init(directory: String, backlog: Int32) throws {
            path = directory + "/console.sock"
            listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            guard Self.withAddress(path, { bind(listener, $0, $1) }) == 0, listen(listener, backlog) == 0 else {
                throw POSIXError(.EADDRNOTAVAIL)
            }
        }

        deinit {
            held.forEach { close($0) }
            close(listener)
        }

        /// One more connection left waiting in the backlog.
        func connectOne() {
            let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            _ = Self.withAddress(path) { connect(fd, $0, $1) }
            held.append(fd)
        }

        static func withAddress(_ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Int32) -> Int32 {
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
            return withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
        }
    }

    /// ctl bounded by the test: before the timeouts it waited for ever on a frozen agent.
    func ctlWithin(_ seconds: TimeInterval, _ arguments: [String]) throws -> (status: Int32, stderr: String, seconds: TimeInterval) {
        let started = Date()
        let ctl = try ChildProcess(executable: Enbeacon.binary.path, arguments: ["ctl"] + arguments, name: "ctl")
        defer { ctl.stop() }
        guard let status = ctl.waitForExit(timeout: seconds) else { throw SessionError("ctl still waiting after \(Int(seconds)) s") }
        return (status, ctl.stderr, Date().timeIntervalSince(started))
    }

    /// A frozen agent stops accepting and its backlog fills; ctl gives up on connecting and says so.
    @Test func anAgentThatTakesNoConnectionCostsTheConnectTimeoutAndSaysWhich() throws {
        let directory = try Directory()
        let frozen = try FrozenListener(directory: directory.path, backlog: 0)
        frozen.connectOne()  // the backlog is full from here on
        let result = try ctlWithin(15, ["--data", directory.path, "--connect-timeout", "1", "status"])
        #expect(result.status == 1)
        #expect(result.stderr == "enbeacon ctl: the agent on \(directory.path) did not take the connection within 1 s "
                + "(connect timeout; it may be stuck, or its console overloaded)\n")
        #expect(result.seconds >= 1)
    }

    @Test func anAgentThatNeverAnswersCostsTheAnswerTimeoutAndSaysWhich() throws {
        let directory = try Directory()
        let frozen = try FrozenListener(directory: directory.path, backlog: 4)
        let result = try ctlWithin(15, ["--data", directory.path, "--timeout", "1", "status"])
        #expect(result.status == 1)
        #expect(result.stderr == "enbeacon ctl: the agent did not answer within 1 s (answer timeout; --timeout SECONDS waits longer)\n")
        #expect(result.seconds >= 1)
        withExtendedLifetime(frozen) {}
    }

    /// Work that goes on in the agent after ctl stops waiting is named, with where its outcome shows.
    @Test func aTimeoutSaysWhatMayStillBeUnderWay() throws {
        let directory = try Directory()
        let frozen = try FrozenListener(directory: directory.path, backlog: 4)
        let share = try ctlWithin(15, ["--data", directory.path, "--timeout", "1", "keys", "share", "12345678", "--yes"])
        #expect(share.stderr == "enbeacon ctl: the agent did not answer within 1 s (answer timeout; --timeout SECONDS waits "
                + "longer); the key share may still be under way: enbeacon ctl keys share status shows its outcome\n")
        let sync = try ctlWithin(15, ["--data", directory.path, "--timeout", "1", "sync", "now"])
        #expect(sync.stderr.hasSuffix("; the sync goes on in the agent: enbeacon ctl sync shows its progress and outcome\n"))
        withExtendedLifetime(frozen) {}
    }

    @Test func timeoutsTakeWholeSeconds() throws {
        for arguments in [["--timeout", "0", "status"], ["--connect-timeout=1.5", "status"], ["--timeout"]] {
            let result = try Enbeacon.run(["ctl"] + arguments)
            #expect(result.status == 2, "\(arguments)")
            #expect(result.stderrLines.count == 1, "\(arguments): \(result.stderr)")
        }
        #expect(try Enbeacon.run(["ctl", "--timeout", "0", "status"]).stderr
                .hasPrefix("enbeacon ctl: --timeout: expected whole seconds from 1 to 86400, got '0'"))
    }
}
