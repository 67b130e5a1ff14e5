@testable import Agent
import ENCore
import EventLoop
import Glibc
import SystemIO
import Testing
import TestSupport
@testable import Console

// No tests here: the harness the console's loop tests share (pseudo-terminals, pipes, socket clients
// and a table of test commands), named to sit with them.

/// A pseudo-terminal pair: the session gets the slave, the test types into and reads the master.
///
/// posix_openpt and friends are not in Swift's Glibc module, so this does what they do on Linux:
/// open /dev/ptmx, unlock the slave, and open it through the master (TIOCGPTPEER, Linux 4.13).
/// The ioctl numbers are the generic Linux encodings (x86, ARM, RISC-V).
final class PseudoTerminal {
    let master: Int32
    let slave: Int32
    private static let unlockSlave: UInt = 0x4004_5431   // TIOCSPTLCK = _IOW('T', 0x31, int)
    private static let openPeer: UInt = 0x5441          // TIOCGPTPEER = _IO('T', 0x41)
    private static let slaveNumber: UInt = 0x8004_5430  // TIOCGPTN = _IOR('T', 0x30, unsigned int)

    init() {
        master = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC)
        precondition(master >= 0, "cannot open /dev/ptmx")
        var unlocked: Int32 = 0
        precondition(ioctl(master, Self.unlockSlave, &unlocked) == 0, "cannot unlock the pty slave")
        slave = ioctl(master, Self.openPeer, O_RDWR | O_NOCTTY | O_CLOEXEC)
        precondition(slave >= 0, "cannot open the pty slave")
        _ = fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK)
    }

    deinit {
        close(master)
        close(slave)
    }

    /// The slave's device path, for opening it as a serial line would be.
    var slavePath: String {
        var number: UInt32 = 0
        precondition(ioctl(master, Self.slaveNumber, &number) == 0, "TIOCGPTN failed")
        return "/dev/pts/\(number)"
    }

    /// The slave's local flags (ECHO, ICANON…), to check raw mode and its undoing.
    var slaveLocalFlags: tcflag_t {
        var settings = termios()
        tcgetattr(slave, &settings)
        return settings.c_lflag
    }
}

/// A non-blocking pipe.
struct TestPipe {
    let readEnd: Int32
    let writeEnd: Int32

    init() {
        var ends: [Int32] = [-1, -1]
        precondition(pipe(&ends) == 0, "pipe failed")
        readEnd = ends[0]
        writeEnd = ends[1]
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
    }

    func close() {
        Glibc.close(readEnd)
        Glibc.close(writeEnd)
    }
}

/// Collects what arrives on a descriptor, on the loop, until end of file (or an error such as a
/// pty's EIO or a socket's reset).
final class Collector {
    private(set) var bytes: [UInt8] = []
    private(set) var ended = false
    private var watch: WatchHandle?
    private let loop: PollLoop

    init(loop: PollLoop, fd: Int32) {
        self.loop = loop
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        watch = loop.watch(fd: fd, for: .readable) { [weak self] _ in self?.read(fd) }
    }

    var text: String { String(decoding: bytes, as: UTF8.self) }

    /// Whether `needle` has arrived. Searches only what came since the last call for the same needle,
    /// so polling it every millisecond stays cheap while megabytes of echo pile up.
    func contains(_ needle: String) -> Bool {
        let pattern = Array(needle.utf8)
        var (from, found) = searched[needle] ?? (0, false)
        if !found, bytes.count >= pattern.count, let first = pattern.first {
            var index = max(from, 0)
            while index + pattern.count <= bytes.count {
                if bytes[index] == first && bytes[index..<index + pattern.count].elementsEqual(pattern) {
                    found = true
                    break
                }
                index += 1
            }
            from = max(0, bytes.count - pattern.count + 1)
        }
        searched[needle] = (from, found)
        return found
    }

    private var searched: [String: (from: Int, found: Bool)] = [:]

    func stop() {
        if let watch { loop.unwatch(watch) }
        watch = nil
    }

    private func read(_ fd: Int32) {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
        if count > 0 {
            bytes += buffer[0..<count]
        } else if count == 0 || (errno != EAGAIN && errno != EINTR) {
            ended = true
            stop()
        }
    }
}

/// Writes bytes to a descriptor as fast as it accepts them, on the loop; more can be queued any time.
final class Feeder {
    private var pending: [UInt8] = []
    private var offset = 0
    private var watch: WatchHandle?
    private let loop: PollLoop
    private let fd: Int32
    private(set) var failed = false
    var onDrained: () -> Void = {}

    init(loop: PollLoop, fd: Int32) {
        self.loop = loop
        self.fd = fd
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        watch = loop.watch(fd: fd, for: []) { [weak self] _ in self?.write() }
    }

    var isDrained: Bool { offset == pending.count }

    func send(_ bytes: [UInt8]) {
        pending += bytes
        if let watch { loop.update(watch, interest: .writable) }
    }

    func send(_ text: String) { send(Array(text.utf8)) }

    func stop() {
        if let watch { loop.unwatch(watch) }
        watch = nil
    }

    private func write() {
        let count = pending[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        let written = count >= 0 ? count
            : errno == ENOTSOCK ? pending[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) } : count
        if written > 0 {
            offset += written
        } else if written < 0 && errno != EAGAIN && errno != EINTR {
            failed = true
            offset = pending.count
        }
        if isDrained {
            pending = []
            offset = 0
            if let watch { loop.update(watch, interest: []) }
            onDrained()
        }
    }
}

/// A client of the console socket driven by the loop: connect, send, collect the answer to EOF.
final class SocketClient {
    let fd: Int32
    let collector: Collector
    let feeder: Feeder

    init(loop: PollLoop, path: String) throws {
        fd = try UnixSocket.connect(to: path)
        collector = Collector(loop: loop, fd: fd)
        feeder = Feeder(loop: loop, fd: fd)
    }

    deinit {
        collector.stop()
        feeder.stop()
        close(fd)
    }

    var answer: String { collector.text }
    var isDone: Bool { collector.ended }
}

/// A random byte string from a fixed seed.
func randomBytes(_ count: Int, seed: UInt64, excluding excluded: Set<UInt8> = []) -> [UInt8] {
    var generator = SplitMix64(seed: seed)
    var bytes: [UInt8] = []
    bytes.reserveCapacity(count)
    while bytes.count < count {
        let byte = UInt8.random(in: 0...255, using: &generator)
        if !excluded.contains(byte) { bytes.append(byte) }
    }
    return bytes
}

/// Commands for the loop tests, recording what ran.
final class TestCommands {
    let table = CommandTable()
    private(set) var echoed: [[String]] = []
    private(set) var statusRuns = 0
    private(set) var exports = 0
    private(set) var liveStopped = 0

    init(loop: any EventLoop) {
        table.register(ConsoleCommand("echo", summary: "print the words", usage: "echo [WORDS]", arguments: 0...8) { [unowned self] request in
            echoed.append(request.arguments)
            return .text("echo: " + request.arguments.joined(separator: " "))
        })
        table.register(ConsoleCommand("status", summary: "how it is") { [unowned self] request in
            statusRuns += 1
            return request.json ? .json(#"{"status":"fine"}"#) : .text("status: fine")
        })
        table.register(ConsoleCommand("keys export", summary: "the keys", consent: .always) { [unowned self] _ in
            exports += 1
            return .text("keys: exported")
        })
        table.register(ConsoleCommand("slow", summary: "answers after 20 ms") { _ in
            let reply = ConsoleDeferredReply()
            loop.schedule(after: .milliseconds(20)) { reply.resolve(.text("slow: done")) }
            return .deferred(reply)
        })
        table.register(ConsoleCommand("flood", summary: "a megabyte of answer") { _ in
            .text(String(repeating: "x", count: 1 << 20))
        })
        table.register(ConsoleCommand("live", summary: "a tick every 2 ms", arguments: 0...1,
                                      completion: .words(["on", "off"])) { [unowned self] request in
            if request.arguments.first == "off" { return .endStream("live off") }
            var timer: TimerHandle?
            var count = 0
            let stream = ConsoleStream { [unowned self] in
                if let timer { loop.cancel(timer) }
                liveStopped += 1
            }
            func tick() {
                count += 1
                stream.send(request.json ? #"{"tick":\#(count)}"# : "tick \(count)")
                timer = loop.schedule(after: .milliseconds(2)) { tick() }
            }
            timer = loop.schedule(after: .milliseconds(2)) { tick() }
            return .stream(stream)
        })
    }
}
