import Foundation
import Glibc

/// `enbeacon-store-writer`, run as a child process with its stdout on a pipe, to be killed at will.
final class WriterProcess {
    /// The binary `swift build` put next to the test bundle (searched upwards: some layouts nest the bundle).
    static let binary: String = {
        var dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        while !FileManager.default.isExecutableFile(atPath: dir.appendingPathComponent("enbeacon-store-writer").path),
              dir.path != "/" {
            dir = dir.deletingLastPathComponent()
        }
        return dir.appendingPathComponent("enbeacon-store-writer").path
    }()

    let pid: pid_t
    private let output: Int32
    private var buffered: [UInt8] = []
    private var reachedEnd = false

    /// Starts the writer with `arguments`; its stderr goes to `stderrPath` (appended) for diagnosis.
    init(_ arguments: [String], stderrPath: String) {
        var pipeEnds: [Int32] = [0, 0]
        precondition(pipe(&pipeEnds) == 0)
        // Keeps other children from inheriting the pipe (not airtight against a spawn on another thread
        // in between, which is why reading after a kill never waits for the pipe's end).
        pipeEnds.forEach { _ = fcntl($0, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], 1)
        posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        let argv = ([Self.binary] + arguments).map { strdup($0) } + [nil]
        var child: pid_t = 0
        let status = posix_spawn(&child, Self.binary, &actions, nil, argv, environ)
        argv.forEach { free($0) }
        posix_spawn_file_actions_destroy(&actions)
        close(pipeEnds[1])
        precondition(status == 0, "cannot start \(Self.binary): \(String(cString: strerror(status)))")
        pid = child
        output = pipeEnds[0]
    }

    deinit { close(output) }

    /// The next line of stdout, or nil at its end or after `timeout` seconds without one.
    func nextLine(timeout: Double = 10) -> String? {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while true {
            if let newline = buffered.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffered[..<newline], as: UTF8.self)
                buffered.removeSubrange(...newline)
                return line
            }
            let remaining = deadline.timeIntervalSinceNow
            guard !reachedEnd, remaining > 0, readAvailable(waiting: remaining) else { return nil }
        }
    }

    /// The lines already written, once the process has been reaped: all it wrote is in the pipe by then.
    func remainingLines() -> [String] {
        while !reachedEnd && readAvailable(waiting: 0) {}
        var lines: [String] = []
        while let newline = buffered.firstIndex(of: UInt8(ascii: "\n")) {
            lines.append(String(decoding: buffered[..<newline], as: UTF8.self))
            buffered.removeSubrange(...newline)
        }
        return lines
    }

    /// Waits up to `seconds` for output and reads it; false when none came.
    private func readAvailable(waiting seconds: Double) -> Bool {
        var poller = pollfd(fd: output, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, Int32(seconds * 1000)) > 0 else { return false }
        var chunk = [UInt8](repeating: 0, count: 4096)
        let n = chunk.withUnsafeMutableBytes { read(output, $0.baseAddress, $0.count) }
        if n > 0 { buffered += chunk[..<n] } else if n == 0 || errno != EINTR { reachedEnd = true }
        return n > 0
    }

    /// SIGKILL, then reaps the process; returns the wait status.
    @discardableResult
    func kill() -> Int32 {
        _ = Glibc.kill(pid, SIGKILL)
        return wait()
    }

    func wait() -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return status
    }

    static func killedBySIGKILL(_ status: Int32) -> Bool {
        // WIFSIGNALED / WTERMSIG, which Swift does not import as functions.
        (status & 0x7F) == SIGKILL
    }

    static func exitCode(_ status: Int32) -> Int32? {
        (status & 0x7F) == 0 ? (status >> 8) & 0xFF : nil
    }
}
