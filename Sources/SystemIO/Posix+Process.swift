import CLinux

/// What the command-line tools ask about their own process and of the programs they start.
extension Posix {
    /// Ends the process with `status`. Output here goes through write(2), so no stdio buffer is left behind.
    public static func exit(_ status: Int32) -> Never { CLinux.exit(status) }

    /// Sleeps for `milliseconds`, resuming after a signal until the whole time has passed.
    public static func sleep(milliseconds: Int) {
        var left = timespec(tv_sec: .init(milliseconds / 1000), tv_nsec: .init((milliseconds % 1000) * 1_000_000))
        var asked = left
        while nanosleep(&asked, &left) != 0 && errno == EINTR { asked = left }
    }

    /// This process's arguments, the program's name first, as the kernel keeps them (/proc/self/cmdline, each
    /// ended by a NUL). Not `CommandLine.arguments`: the board build (Embedded Swift) has no `CommandLine`.
    /// Empty if /proc cannot be read.
    public static func arguments() -> [String] {
        guard let fd = try? open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC) else { return [] }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4_096)
        while true {  // /proc reports no size: read to the end
            let n = chunk.withUnsafeMutableBytes { CLinux.read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { break }
            bytes += chunk[..<n]
        }
        if bytes.last == 0 { bytes.removeLast() }
        guard !bytes.isEmpty else { return [] }
        return bytes.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The value of the environment variable `name`, nil when it is not set.
    public static func environment(_ name: String) -> String? { getenv(name).map { String(cString: $0) } }

    /// Sets the environment variable `name` to `value`, replacing what it held.
    public static func setEnvironment(_ name: String, to value: String) { _ = setenv(name, value, 1) }

    /// Removes the environment variable `name`.
    public static func removeEnvironment(_ name: String) { _ = unsetenv(name) }

    /// Makes glibc's malloc keep one arena for the whole process (mallopt M_ARENA_MAX, a macro Swift cannot
    /// import, hence the shim).
    public static func useOneMallocArena() { _ = enb_malloc_single_arena() }

    /// The most memory this process has had resident at once, in KiB (getrusage's ru_maxrss).
    public static var peakResidentKilobytes: Int {
        var usage = rusage()
        _ = getrusage(RUSAGE_SELF.rawValue, &usage)
        return Int(usage.ru_maxrss)
    }

    /// The path of this process's executable, nil when /proc cannot say.
    public static var executablePath: String? {
        var buffer = [UInt8](repeating: 0, count: Int(PATH_MAX))
        let length = buffer.withUnsafeMutableBytes { raw in
            readlink("/proc/self/exe", raw.baseAddress!.assumingMemoryBound(to: CChar.self), raw.count - 1)
        }
        guard length > 0 else { return nil }
        return String(decoding: buffer[..<length], as: UTF8.self)
    }

    /// Runs `arguments` (the first found on PATH) with this process's environment, stdout and stderr, and
    /// waits for it: its exit status, 128 + the signal's number when a signal ended it, or -1 when it could
    /// not be started.
    public static func run(_ arguments: [String]) -> Int32 {
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        guard posix_spawnp(&pid, arguments[0], nil, nil, argv, enb_environment()) == 0 else { return -1 }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { return -1 }
        }
        return ChildProcess.exitStatus(fromWaitStatus: status)
    }
}
