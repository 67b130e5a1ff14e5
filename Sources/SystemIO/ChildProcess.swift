import CLinux

/// A shell command run as a child of the agent: spawned without copying the agent, watched without blocking.
public enum ChildProcess {
    /// Starts `/bin/sh -c command` with `stdin` as its stdin and the agent's stderr as its stdout (the console
    /// owns stdout), in a process group of its own, with default signal handling. Returns its pid.
    ///
    /// posix_spawn rather than fork: a large agent is not copied. The agent blocks SIGTERM/SIGINT/SIGHUP (they
    /// arrive through a signalfd) and ignores SIGPIPE; a child must start with neither, or it could not be
    /// stopped and would misbehave on a closed pipe.
    public static func spawnShell(_ command: String, stdin: Int32) throws(SystemError) -> Int32 {
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
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGPIPE, SIGTERM, SIGINT, SIGHUP, SIGCHLD] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))
        let words: [String] = ["/bin/sh", "-c", command]
        let argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, "/bin/sh", &actions, &attributes, argv, enb_environment())
        guard status == 0 else { throw SystemError(call: "posix_spawn", path: "/bin/sh", code: status) }
        return pid
    }

    /// What a look at a child found.
    public enum State: Equatable, Sendable {
        case running
        /// Its exit status, 128 + the signal for a child that was killed.
        case exited(Int32)
        /// The look was interrupted by a signal: look again.
        case interrupted
        /// The child cannot be collected (not ours, or already collected).
        case uncollectable(SystemError)
    }

    /// Collects `pid` if it has exited (waitpid with WNOHANG): never blocks.
    public static func state(of pid: Int32) -> State {
        var status: Int32 = 0
        let result = waitpid(pid, &status, WNOHANG)
        if result == 0 { return .running }
        if result < 0 { return errno == EINTR ? .interrupted : .uncollectable(.last("waitpid")) }
        return .exited(exitStatus(fromWaitStatus: status))
    }

    /// waitpid's status as a shell says it: the exit status, or 128 + the signal that ended the child.
    /// Decoded by hand: WIFEXITED and friends are macros Swift cannot import.
    static func exitStatus(fromWaitStatus status: Int32) -> Int32 {
        status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
    }

    /// Kills the process group `pid` leads (the command and whatever it started).
    public static func killGroup(_ pid: Int32) { _ = kill(-pid, SIGKILL) }
}
