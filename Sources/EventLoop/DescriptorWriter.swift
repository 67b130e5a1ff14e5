import SystemIO

/// Output for one descriptor that never blocks the loop: the console's terminal, pipe or serial line,
/// each console socket connection, and the HCI stream transports.
///
/// Bytes are queued (bounded and droppable as `OutputQueue` says), written at once as far as the
/// descriptor takes them, and the rest when the loop reports it writable; the writer asks the loop for
/// writability only while bytes wait, since an idle descriptor is writable almost always. A failed
/// write (the reader hung up, a serial adapter was unplugged) is reported once, and so is a reader that
/// takes nothing for `stallTimeout`; after a failure everything waiting is dropped and nothing more is
/// written. The descriptor stays the owner's: the writer never closes it.
public final class DescriptorWriter {
    public enum Failure: Error, Hashable, Sendable, CustomStringConvertible {
        case system(SystemError)
        /// Bytes waited this long without the reader taking any.
        case stalled(Duration)

        public var description: String {
            switch self {
            case .system(let error): error.reason
            case .stalled(let timeout): "the reader took nothing for \(timeout.humanReadable)"
            }
        }
    }

    public struct Settings: Sendable {
        /// Answers are dropped once this much waits (see `OutputQueue`); unbounded by default.
        public var limit = Int.max
        /// Droppable bytes (`live` lines) are dropped once this much would wait.
        public var droppableLimit = Int.max
        /// How long bytes may wait without any being taken before the writer fails; nil waits for ever.
        public var stallTimeout: Duration?

        public init(limit: Int = .max, droppableLimit: Int = .max, stallTimeout: Duration? = nil) {
            self.limit = limit
            self.droppableLimit = droppableLimit
            self.stallTimeout = stallTimeout
        }
    }

    public let fd: Int32
    /// Called once, when writing fails; may be called from inside `append` or `flush`.
    public var onFailure: (Failure) -> Void = { _ in }
    /// Called whenever a write leaves nothing waiting, including from inside `append`.
    public var onDrained: () -> Void = {}
    public private(set) var failure: Failure?

    /// While held, bytes queue but nothing is written: a TCP connection still being established.
    public var isHeld = false {
        didSet { if oldValue && !isHeld { flush() } }
    }

    private let loop: any EventLoop
    private let settings: Settings
    private var queue: OutputQueue
    private var watch: WatchHandle?
    private var stallTimer: TimerHandle?
    /// send(2) on a socket: MSG_NOSIGNAL turns a vanished peer into EPIPE instead of a SIGPIPE, and
    /// MSG_DONTWAIT needs no flag juggling. write(2) on everything else (terminals, pipes, UARTs).
    private let isSocket: Bool
    private var stopped = false

    public init(loop: any EventLoop, fd: Int32, settings: Settings = Settings()) {
        self.loop = loop
        self.fd = fd
        self.settings = settings
        queue = OutputQueue(limit: settings.limit, droppableLimit: settings.droppableLimit)
        isSocket = DescriptorIO.isSocket(fd)
    }

    /// Nothing waits to be written.
    public var isEmpty: Bool { queue.isEmpty }

    /// Bytes waiting for the reader.
    public var waitingByteCount: Int { queue.count }

    /// Queues `bytes` and writes what the descriptor takes now. False when they were dropped: the queue
    /// was too full for their kind, or the writer has failed or stopped.
    @discardableResult
    public func append(_ bytes: [UInt8], droppable: Bool = false) -> Bool {
        guard !stopped, failure == nil else { return false }
        guard !bytes.isEmpty else { return true }
        let accepted = queue.append(bytes, droppable: droppable)
        flush()
        return accepted && failure == nil && !stopped
    }

    /// Droppable lines and answer bytes dropped since the last call.
    public func takeDropCounts() -> (lines: Int, bytes: Int) { queue.takeDropCounts() }

    /// Writes what the descriptor takes now; asks the loop for writability only while bytes wait.
    public func flush() {
        guard !stopped, failure == nil, !isHeld else { return }
        var failedWith: Int32?
        var progressed = false
        var progressing = true
        while !queue.isEmpty, failedWith == nil, progressing {
            queue.drain { bytes in
                switch isSocket ? DescriptorIO.send(fd, bytes) : DescriptorIO.write(fd, bytes) {
                case .transferred(let count):
                    progressing = count > 0
                    progressed = progressed || count > 0
                    return count
                case .wouldBlock, .endOfFile:
                    progressing = false
                case .failed(let code):
                    failedWith = code
                }
                return 0
            }
        }
        if let failedWith {
            fail(.system(SystemError(call: isSocket ? "send" : "write", code: failedWith)))
            return
        }
        updateStallTimer(progressed: progressed)
        updateInterest()
        if queue.isEmpty { onDrained() }
    }

    /// Drops what waits and stops watching the descriptor; nothing is written or reported afterwards. The
    /// loop holds the writer while it watches or times (no weak references: the board build has none), and
    /// the callbacks may hold their owner: stopping lets go of both, so an owner must stop what it made.
    public func stop() {
        guard !stopped else { return }
        stopped = true
        onFailure = { _ in }
        onDrained = {}
        queue.removeAll()
        if let watch { loop.unwatch(watch) }
        watch = nil
        if let stallTimer { loop.cancel(stallTimer) }
        stallTimer = nil
    }

    private func updateInterest() {
        let interest: FDInterest = queue.isEmpty || isHeld ? [] : .writable
        if let watch {
            loop.update(watch, interest: interest)
        } else if !interest.isEmpty {
            watch = loop.watch(fd: fd, for: interest) { readiness in self.ready(readiness) }
        }
    }

    private func ready(_ readiness: FDReadiness) {
        if readiness.contains(.invalid) {
            watch = nil  // the loop has dropped it
            fail(.system(SystemError(call: isSocket ? "send" : "write", code: Errno.badDescriptor)))
            return
        }
        flush()
    }

    private func updateStallTimer(progressed: Bool) {
        guard let timeout = settings.stallTimeout else { return }
        if let stallTimer, progressed || queue.isEmpty {
            loop.cancel(stallTimer)
            self.stallTimer = nil
        }
        guard !queue.isEmpty, stallTimer == nil else { return }
        stallTimer = loop.schedule(after: timeout) {
            self.stallTimer = nil
            self.fail(.stalled(timeout))
        }
    }

    private func fail(_ reason: Failure) {
        guard failure == nil, !stopped else { return }
        failure = reason
        queue.removeAll()
        if let watch { loop.update(watch, interest: []) }
        if let stallTimer { loop.cancel(stallTimer) }
        stallTimer = nil
        onFailure(reason)
    }
}
