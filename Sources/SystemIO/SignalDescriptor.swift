import CLinux

/// A signalfd: signals turned into readable records on a descriptor, so that they arrive as
/// ordinary loop callbacks instead of interrupting code at arbitrary points.
///
/// `signalfd` and its record come from <sys/signalfd.h> through the CLinux module.
public enum SignalDescriptor {
    public static let terminate = SIGTERM
    public static let interrupt = SIGINT
    public static let hangup = SIGHUP
    public static let user1 = SIGUSR1

    static let recordSize = MemoryLayout<signalfd_siginfo>.size

    /// Blocks `signals` for the calling thread (threads created later inherit the mask) and opens
    /// a non-blocking signalfd that reports them.
    public static func open(for signals: [Int32]) throws(SystemError) -> Int32 {
        var set = sigset_t()
        sigemptyset(&set)
        for signal in signals { sigaddset(&set, signal) }
        // Blocked, a signal stays pending until read from the signalfd instead of running a handler
        // or its default action (which for these three is to terminate).
        let status = pthread_sigmask(SIG_BLOCK, &set, nil)
        guard status == 0 else { throw SystemError(call: "pthread_sigmask", code: status) }
        let fd = signalfd(-1, &set, Int32(SFD_NONBLOCK | SFD_CLOEXEC))
        guard fd >= 0 else { throw SystemError.last("signalfd") }
        return fd
    }

    /// Reads every pending signal from `fd` and returns their numbers in arrival order.
    public static func drain(_ fd: Int32) -> [Int32] {
        var signals: [Int32] = []
        var record = signalfd_siginfo()
        // A signalfd reads whole records only; EAGAIN means nothing is left, and nothing else can happen
        // on a valid one.
        while case .transferred(recordSize) = withUnsafeMutableBytes(of: &record, { DescriptorIO.read(fd, into: $0) }) {
            signals.append(Int32(bitPattern: record.ssi_signo))
        }
        return signals
    }

    /// Writing to a closed socket or pipe then returns EPIPE instead of killing the process.
    public static func ignoreBrokenPipe() { enb_ignore_signal(SIGPIPE) }
}
