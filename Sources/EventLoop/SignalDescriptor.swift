import Glibc

/// A signalfd: signals turned into readable records on a descriptor, so that they arrive as
/// ordinary loop callbacks instead of interrupting code at arbitrary points.
///
/// Swift's Glibc module does not include <sys/signalfd.h>, so the libc function is looked up by
/// name once. Its C signature and the record layout are fixed by the Linux ABI.
enum SignalDescriptor {
    private typealias SignalFDFunction = @convention(c) (Int32, UnsafePointer<sigset_t>?, Int32) -> Int32

    private static let signalfdFunction: SignalFDFunction? = {
        guard let process = dlopen(nil, RTLD_LAZY), let symbol = dlsym(process, "signalfd") else { return nil }
        return unsafeBitCast(symbol, to: SignalFDFunction.self)
    }()

    /// `struct signalfd_siginfo` is 128 bytes and begins with `uint32_t ssi_signo`.
    static let recordSize = 128

    /// Blocks `signals` for the calling thread (threads created later inherit the mask) and opens
    /// a non-blocking signalfd that reports them.
    static func open(for signals: [Int32]) throws(SystemCallError) -> Int32 {
        guard let signalfd = signalfdFunction else { throw SystemCallError(call: "dlsym(signalfd)", code: ENOSYS) }
        var set = sigset_t()
        sigemptyset(&set)
        for signal in signals { sigaddset(&set, signal) }
        // Blocked, a signal stays pending until read from the signalfd instead of running a handler
        // or its default action (which for these three is to terminate).
        let status = pthread_sigmask(SIG_BLOCK, &set, nil)
        guard status == 0 else { throw SystemCallError(call: "pthread_sigmask", code: status) }
        // SFD_NONBLOCK and SFD_CLOEXEC are defined by the kernel as O_NONBLOCK and O_CLOEXEC.
        let fd = signalfd(-1, &set, O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw SystemCallError.lastError(of: "signalfd") }
        return fd
    }

    /// Reads every pending signal from `fd` and returns their numbers in arrival order.
    static func drain(_ fd: Int32) -> [Int32] {
        var signals: [Int32] = []
        var record = [UInt8](repeating: 0, count: recordSize)
        while true {
            let count = record.withUnsafeMutableBytes { read(fd, $0.baseAddress, recordSize) }
            if count == recordSize {
                let number = record.withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }
                signals.append(Int32(bitPattern: number))
            } else if count < 0 && errno == EINTR {
                continue
            } else {
                // EAGAIN: nothing left. Anything else cannot happen for a valid signalfd.
                return signals
            }
        }
    }
}
