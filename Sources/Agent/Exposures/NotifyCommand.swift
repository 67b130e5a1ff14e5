import EventLoop
#if canImport(Glibc)
import Glibc
#endif

/// Runs `notify.command` with `/bin/sh -c`, handing it one document on stdin, without ever blocking the loop.
///
/// The child is spawned (posix_spawn, so a large agent is not copied), its stdin fed through a socket pair
/// by a `DescriptorWriter` (a command that exits without reading gets EPIPE, never a SIGPIPE that would kill
/// the agent), its
/// stdout joined to the agent's stderr (the console owns stdout), and its exit collected on the loop by
/// polling `waitpid(WNOHANG)` with a growing interval. A command that fails or hangs is logged, killed after
/// `timeLimit`, and never affects the agent.
public final class NotifyCommand {
    public let command: String
    /// A command still running after this is killed.
    public var timeLimit: Duration = .seconds(300)
    /// Children started and not yet reaped.
    public private(set) var running = 0
    public private(set) var started = 0
    /// Children that exited with a non-zero status, were killed, or could not be started.
    public private(set) var failed = 0
    /// Called with each child's exit status (128 + signal for a killed one) once it is reaped.
    public var onExit: (Int32) -> Void = { _ in }

    private let loop: any EventLoop
    private let log: Logger
    /// The stdin of each child still being fed, by descriptor.
    private var feeders: [Int32: DescriptorWriter] = [:]

    public init(_ command: String, loop: any EventLoop, log: Logger) {
        self.command = command
        self.loop = loop
        self.log = log
    }

    deinit {
        for (fd, writer) in feeders {
            writer.stop()
            close(fd)
        }
    }

    /// Starts the command with `input` on its stdin; `label` names it in log lines.
    public func run(input: [UInt8], label: String) {
        var ends: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0 else {
            fail(label, "socketpair: \(String(cString: strerror(errno)))")
            return
        }
        let spawned = spawn(stdin: ends[1])
        close(ends[1])
        guard case .success(let pid) = spawned else {
            close(ends[0])
            if case .failure(let reason) = spawned { fail(label, reason.text) }
            return
        }
        started += 1
        running += 1
        log.debug("notify: started pid \(pid) for \(label)")
        feed(ends[0], input, label: label)
        // The first look comes from the loop too, so `onExit` never runs inside `run`.
        let startedAt = loop.now
        loop.schedule(after: .milliseconds(5)) { [weak self] in
            self?.reap(pid, label: label, startedAt: startedAt, wait: .milliseconds(10))
        }
    }

    private struct SpawnFailure: Error { let text: String }

    private func spawn(stdin: Int32) -> Result<pid_t, SpawnFailure> {
        var actions = posix_spawn_file_actions_t()
        var attributes = posix_spawnattr_t()
        posix_spawn_file_actions_init(&actions)
        posix_spawnattr_init(&attributes)
        defer {
            posix_spawn_file_actions_destroy(&actions)
            posix_spawnattr_destroy(&attributes)
        }
        posix_spawn_file_actions_adddup2(&actions, stdin, 0)
        posix_spawn_file_actions_adddup2(&actions, 2, 1)
        // The agent blocks SIGTERM/SIGINT/SIGHUP (they arrive through a signalfd) and ignores SIGPIPE; a child
        // must start with neither, or it could not be stopped and would misbehave on a closed pipe.
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGPIPE, SIGTERM, SIGINT, SIGHUP, SIGCHLD] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        // A process group of its own, so that a hung command is killed with whatever it started.
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))
        let words: [String] = ["/bin/sh", "-c", command]
        let argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, "/bin/sh", &actions, &attributes, argv, environ)
        guard status == 0 else { return .failure(SpawnFailure(text: "cannot start /bin/sh: \(String(cString: strerror(status)))")) }
        return .success(pid)
    }

    /// Writes `input` as the child takes it and closes its stdin when all is written, or when the child stops
    /// reading.
    private func feed(_ fd: Int32, _ input: [UInt8], label: String) {
        let writer = DescriptorWriter(loop: loop, fd: fd)
        feeders[fd] = writer
        writer.onDrained = { [weak self] in self?.finishFeeding(fd) }
        writer.onFailure = { [weak self] _ in
            // EPIPE or ECONNRESET: the command did not want (all of) its input. Its exit status tells the rest.
            self?.log.debug("notify: \(label): stdin closed early")
            self?.finishFeeding(fd)
        }
        writer.append(input)
    }

    private func finishFeeding(_ fd: Int32) {
        guard let writer = feeders.removeValue(forKey: fd) else { return }
        writer.stop()
        close(fd)
    }

    private func reap(_ pid: pid_t, label: String, startedAt: MonotonicInstant, wait: Duration, killed: Bool = false) {
        var status: Int32 = 0
        let result = waitpid(pid, &status, WNOHANG)
        if result == 0 {
            let overdue = !killed && loop.now - startedAt > timeLimit
            if overdue {
                log.warn("notify: \(label): still running after \(timeLimit), killing process group \(pid)")
                kill(-pid, SIGKILL)
            }
            loop.schedule(after: wait) { [weak self] in
                self?.reap(pid, label: label, startedAt: startedAt, wait: min(wait * 2, .milliseconds(500)),
                           killed: killed || overdue)
            }
            return
        }
        if result < 0 && errno == EINTR {
            loop.schedule(after: .zero) { [weak self] in
                self?.reap(pid, label: label, startedAt: startedAt, wait: wait, killed: killed)
            }
            return
        }
        running -= 1
        // Decoded by hand: WIFEXITED and friends are macros Swift cannot import.
        let exitStatus: Int32
        if result < 0 {
            exitStatus = 255
            log.warn("notify: \(label): cannot collect pid \(pid): \(String(cString: strerror(errno)))")
        } else if status & 0x7F == 0 {
            exitStatus = (status >> 8) & 0xFF
        } else {
            exitStatus = 128 + (status & 0x7F)
        }
        if exitStatus != 0 {
            failed += 1
            log.warn(.notifyFailed, "notify: \(label): command failed with status \(exitStatus)")
        } else {
            log.debug("notify: \(label): command done")
        }
        onExit(exitStatus)
    }

    private func fail(_ label: String, _ reason: String) {
        failed += 1
        log.error(.notifyFailed, "notify: \(label): \(reason)")
    }
}
