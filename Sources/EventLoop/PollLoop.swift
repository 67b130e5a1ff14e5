import Glibc
import SystemIO

/// The real event loop: `poll(2)` over the watched descriptors, with the timeout taken from the
/// earliest timer on CLOCK_MONOTONIC.
///
/// Each iteration polls, then runs the timers that were due when the poll returned, then calls each
/// ready descriptor's handler once. Neither a busy descriptor nor a timer that keeps rescheduling
/// itself with zero delay can starve the others: new work always waits for the next iteration, and
/// the next iteration polls (with a zero timeout when work is already due) before running it.
public final class PollLoop: EventLoop {
    private struct Watch {
        let id: UInt64
        let fd: Int32
        var interest: FDInterest
        let handler: (FDReadiness) -> Void
    }

    public let defaultSliceBudget: SliceBudget

    private var timers = TimerHeap<() -> Void>()
    /// In registration order, so that ready descriptors are served in a stable order.
    private var watches: [Watch] = []
    private var nextWatchID: UInt64 = 0

    // Reused across iterations: the loop runs for months and need not allocate per poll.
    private var pollDescriptors: [pollfd] = []
    private var polledWatchIDs: [UInt64] = []
    private var readyWatches: [(id: UInt64, readiness: FDReadiness)] = []

    private var isRunning = false
    private var stopRequested = false

    private var signalFD: Int32?
    private var signalWatch: WatchHandle?

    /// - Parameter sliceBudget: how long a `SlicedJob` works before letting descriptors and timers
    ///   in; a few milliseconds keeps HCI events and the console responsive.
    public init(sliceBudget: SliceBudget = .duration(.milliseconds(5))) {
        defaultSliceBudget = sliceBudget
    }

    deinit {
        if let signalFD { close(signalFD) }
    }

    public var now: MonotonicInstant { SystemClock.monotonic() }

    public var unixNanoseconds: Int64 { SystemClock.realtimeNanoseconds() }

    public func setWallClock(unixNanoseconds: Int64) throws(WallClockError) {
        try SystemClock.setRealtime(nanoseconds: unixNanoseconds)
    }

    // MARK: Timers

    @discardableResult
    public func schedule(at deadline: MonotonicInstant, _ action: @escaping () -> Void) -> TimerHandle {
        // Never earlier than now: a past deadline must still sort after already-due work.
        TimerHandle(sequence: timers.insert(action, at: max(deadline, now)))
    }

    public func cancel(_ timer: TimerHandle) {
        timers.remove(sequence: timer.sequence)
    }

    // MARK: Descriptors

    public func watch(fd: Int32, for interest: FDInterest, _ handler: @escaping (FDReadiness) -> Void) -> WatchHandle {
        precondition(fd >= 0, "PollLoop.watch: invalid descriptor \(fd)")
        let id = nextWatchID
        nextWatchID += 1
        watches.append(Watch(id: id, fd: fd, interest: interest, handler: handler))
        return WatchHandle(id: id)
    }

    public func update(_ watch: WatchHandle, interest: FDInterest) {
        guard let index = watches.firstIndex(where: { $0.id == watch.id }) else { return }
        watches[index].interest = interest
    }

    public func unwatch(_ watch: WatchHandle) {
        watches.removeAll { $0.id == watch.id }
    }

    // MARK: Signals

    /// Delivers `signals` to `handler` as loop callbacks, through a signalfd; also ignores SIGPIPE
    /// process-wide, so that writing to a closed socket or pipe returns EPIPE instead of killing
    /// the agent.
    ///
    /// The signals are blocked for the calling thread, and only threads created afterwards inherit
    /// that: call this early in `main`, before anything (libcurl's resolver, say) starts a thread,
    /// or a process-directed signal may be taken by a thread that does not block it. A typical
    /// handler stops the loop on SIGTERM and SIGINT and reloads the configuration on SIGHUP.
    /// Calling it again replaces the previous handler and signal set.
    public func handleSignals(
        _ signals: [Int32] = [SIGTERM, SIGINT, SIGHUP],
        _ handler: @escaping (Int32) -> Void
    ) throws(SystemError) {
        signal(SIGPIPE, SIG_IGN)
        let fd = try SignalDescriptor.open(for: signals)
        stopHandlingSignals()
        signalFD = fd
        signalWatch = watch(fd: fd, for: .readable) { _ in
            for signal in SignalDescriptor.drain(fd) { handler(signal) }
        }
    }

    /// Closes the signalfd. The signals stay blocked: unblocking them now would let the default
    /// action (termination) hit a signal that was still pending.
    public func stopHandlingSignals() {
        if let signalWatch { unwatch(signalWatch) }
        if let signalFD { close(signalFD) }
        signalWatch = nil
        signalFD = nil
    }

    // MARK: Running

    public func stop() {
        stopRequested = true
    }

    /// Runs until `stop()` is called, or until nothing is left that could ever call back
    /// (no timers and no watch with a non-empty interest), which would otherwise block forever.
    public func run() {
        precondition(!isRunning, "PollLoop.run called re-entrantly from a callback")
        isRunning = true
        defer {
            isRunning = false
            stopRequested = false
        }
        while !stopRequested {
            guard !timers.isEmpty || watches.contains(where: { !$0.interest.isEmpty }) else { return }
            pollOnce(timeoutMilliseconds: pollTimeoutMilliseconds())
            runDueTimers()
            dispatchReadyWatches()
        }
    }

    /// Milliseconds until the earliest timer, rounded up so the loop wakes at or after the deadline
    /// rather than spinning through zero-timeout polls just before it; -1 (forever) with no timers.
    private func pollTimeoutMilliseconds() -> Int32 {
        guard let deadline = timers.earliest?.deadline else { return -1 }
        let remaining = deadline.nanoseconds &- now.nanoseconds
        guard remaining > 0 else { return 0 }
        let milliseconds = (remaining - 1) / 1_000_000 + 1
        return Int32(clamping: milliseconds)
    }

    private func pollOnce(timeoutMilliseconds: Int32) {
        pollDescriptors.removeAll(keepingCapacity: true)
        polledWatchIDs.removeAll(keepingCapacity: true)
        readyWatches.removeAll(keepingCapacity: true)
        for watch in watches where !watch.interest.isEmpty {
            pollDescriptors.append(pollfd(fd: watch.fd, events: Self.pollEvents(for: watch.interest), revents: 0))
            polledWatchIDs.append(watch.id)
        }
        let count = pollDescriptors.withUnsafeMutableBufferPointer {
            poll($0.baseAddress, nfds_t($0.count), timeoutMilliseconds)
        }
        if count < 0 {
            switch errno {
            case EINTR, EAGAIN, ENOMEM:
                // A signal handler ran, or the kernel was briefly short of memory: just go round
                // again; due timers still run below.
                return
            default:
                fatalError("poll: \(SystemError.last("poll"))")
            }
        }
        for (index, descriptor) in pollDescriptors.enumerated() where descriptor.revents != 0 {
            readyWatches.append((polledWatchIDs[index], Self.readiness(from: descriptor.revents)))
        }
    }

    private func runDueTimers() {
        let tickNow = now
        // Timers scheduled by these callbacks get sequence numbers at or past the fence and wait
        // for the next iteration, after descriptors have had their turn.
        let fence = timers.nextSequence
        while !stopRequested, let timer = timers.popDue(at: tickNow, insertedBefore: fence) {
            timer.payload()
        }
    }

    private func dispatchReadyWatches() {
        for (id, observed) in readyWatches {
            if stopRequested { return }
            // Look the watch up again: an earlier callback in this iteration may have removed it
            // (and closed its descriptor) or changed its interest.
            guard let watch = watches.first(where: { $0.id == id }), !watch.interest.isEmpty else { continue }
            let readiness = observed.intersection(FDReadiness(deliverableFor: watch.interest))
            guard !readiness.isEmpty else { continue }
            if readiness.contains(.invalid) {
                // A closed descriptor stays invalid forever and would be reported on every
                // iteration; report it once, then drop the watch.
                unwatch(WatchHandle(id: id))
            }
            watch.handler(readiness)
        }
    }

    private static func pollEvents(for interest: FDInterest) -> Int16 {
        var events: Int32 = 0
        if interest.contains(.readable) { events |= POLLIN }
        if interest.contains(.writable) { events |= POLLOUT }
        return Int16(events)
    }

    private static func readiness(from revents: Int16) -> FDReadiness {
        let bits = Int32(revents)
        var readiness: FDReadiness = []
        if bits & POLLIN != 0 { readiness.insert(.readable) }
        if bits & POLLOUT != 0 { readiness.insert(.writable) }
        if bits & POLLERR != 0 { readiness.insert(.error) }
        if bits & POLLHUP != 0 { readiness.insert(.hangup) }
        if bits & POLLNVAL != 0 { readiness.insert(.invalid) }
        return readiness
    }
}
