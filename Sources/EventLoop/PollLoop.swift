import SystemIO

/// The real event loop: `poll(2)` over the watched descriptors, with the timeout taken from the
/// earliest timer on CLOCK_MONOTONIC.
///
/// Each iteration polls, then runs the timers that were due when the poll returned, then calls each
/// ready descriptor's handler once. Neither a busy descriptor nor a timer that keeps rescheduling
/// itself with zero delay can starve the others: new work always waits for the next iteration, and
/// the next iteration polls (with a zero timeout when work is already due) before running it.
public final class PollLoop: EventLoop {
    public let defaultSliceBudget: SliceBudget

    private var timers = TimerHeap<() -> Void>()
    private let watches = DescriptorWatches()

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
        if let signalFD { DescriptorIO.close(signalFD) }
    }

    public var now: MonotonicInstant { MonotonicInstant(nanoseconds: KernelClock.monotonicNanoseconds()) }

    public var unixNanoseconds: Int64 { KernelClock.realtimeNanoseconds() }

    public func setWallClock(unixNanoseconds: Int64) throws(WallClockError) {
        do { try KernelClock.setRealtime(nanoseconds: unixNanoseconds) } catch { throw WallClockError(errno: error.code) }
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
        watches.add(fd: fd, for: interest, handler)
    }

    public func update(_ watch: WatchHandle, interest: FDInterest) {
        watches.update(watch, interest: interest)
    }

    public func unwatch(_ watch: WatchHandle) {
        watches.remove(watch)
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
        _ signals: [Int32] = [SignalDescriptor.terminate, SignalDescriptor.interrupt, SignalDescriptor.hangup],
        _ handler: @escaping (Int32) -> Void
    ) throws(SystemError) {
        SignalDescriptor.ignoreBrokenPipe()
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
        if let signalFD { DescriptorIO.close(signalFD) }
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
            guard !timers.isEmpty || watches.anyInterest else { return }
            watches.poll(timeoutMilliseconds: pollTimeoutMilliseconds())
            let turnStart = now
            runDueTimers(at: turnStart)
            watches.dispatchReady { !stopRequested }
            // What every callback of one turn cost together: the longest time the loop could not answer.
            longestTurnSoFar = max(longestTurnSoFar, now - turnStart)
        }
    }

    /// The longest one turn of the loop has taken since it was made (its callbacks, not its waits): how long
    /// the console, the radio and the watchdog may have waited at worst. Reported by the metrics.
    public var longestTurn: Duration? { longestTurnSoFar }
    private var longestTurnSoFar: Duration = .zero

    /// Milliseconds until the earliest timer, rounded up so the loop wakes at or after the deadline
    /// rather than spinning through zero-timeout polls just before it; -1 (forever) with no timers.
    private func pollTimeoutMilliseconds() -> Int32 {
        guard let deadline = timers.earliest?.deadline else { return -1 }
        let remaining = deadline.nanoseconds &- now.nanoseconds
        guard remaining > 0 else { return 0 }
        let milliseconds = (remaining - 1) / 1_000_000 + 1
        return Int32(clamping: milliseconds)
    }

    private func runDueTimers(at tickNow: MonotonicInstant) {
        // Timers scheduled by these callbacks get sequence numbers at or past the fence and wait
        // for the next iteration, after descriptors have had their turn.
        let fence = timers.nextSequence
        while !stopRequested, let timer = timers.popDue(at: tickNow, insertedBefore: fence) {
            timer.payload()
        }
    }
}
