import SystemIO

/// Simulated time for tests and `enbeacon demo`: nothing blocks, and the clock jumps straight to the
/// next timer, so days of agent life pass in seconds, identically on every run.
///
/// Time stands still inside a callback and moves only between timers. Monotonic time starts at
/// zero. The wall clock starts at `startUnixNanoseconds`, advances with monotonic time, and can be
/// set or jumped independently of it, as NTP, an RTC or an operator would move a real one.
///
/// Simulated devices (the virtual radio and controller) deliver their data through timers. Real
/// descriptors can be watched too — a simulated badge downloading keys from, or publishing them to, a
/// server on 127.0.0.1 — and while any watch has an interest, virtual time passes as real time does
/// (`poll(2)` waits at most until the next timer): the simulation waits for the network exactly as a
/// badge would, and jumps again once nothing but timers is left.
public final class VirtualLoop: EventLoop {
    /// 2021-01-01T00:00:00Z: an arbitrary but fixed start, so simulated timestamps are reproducible.
    public static let defaultStartUnixNanoseconds: Int64 = 1_609_459_200_000_000_000

    public private(set) var now: MonotonicInstant = .zero

    /// Timer callbacks run so far, over the loop's whole life.
    public private(set) var steps = 0

    public let defaultSliceBudget: SliceBudget

    /// Virtual time stands still while callbacks run.
    public var longestTurn: Duration? { nil }

    private var timers = TimerHeap<() -> Void>()
    private let watches = DescriptorWatches()
    /// The wall-clock reading at monotonic zero; wall-clock jumps move this, not `now`.
    private var unixNanosecondsAtZero: Int64
    private var isRunning = false
    private var stopRequested = false

    /// - Parameters:
    ///   - startUnixNanoseconds: the wall clock at the start of the simulation.
    ///   - sliceIterations: steps a `SlicedJob` takes per slice; the clock does not move while it
    ///     works, so an iteration count stands in for a time budget.
    public init(startUnixNanoseconds: Int64 = defaultStartUnixNanoseconds, sliceIterations: Int = 256) {
        precondition(sliceIterations > 0, "VirtualLoop: sliceIterations must be positive")
        unixNanosecondsAtZero = startUnixNanoseconds
        defaultSliceBudget = .iterations(sliceIterations)
    }

    // MARK: Wall clock

    public var unixNanoseconds: Int64 { unixNanosecondsAtZero &+ now.nanoseconds }

    /// Sets the wall clock to `unixNanoseconds` without touching monotonic time or timers.
    public func setWallClock(unixNanoseconds: Int64) {
        unixNanosecondsAtZero = unixNanoseconds &- now.nanoseconds
    }

    /// Moves the wall clock forward (positive) or backward (negative) without touching monotonic
    /// time or timers.
    public func jumpWallClock(by offset: Duration) {
        unixNanosecondsAtZero = unixNanosecondsAtZero &+ offset.nanosecondsValue
    }

    // MARK: Timers

    @discardableResult
    public func schedule(at deadline: MonotonicInstant, _ action: @escaping () -> Void) -> TimerHandle {
        // Never earlier than now: time must not run backwards, and a past deadline must still
        // sort after work already due at this instant.
        TimerHandle(sequence: timers.insert(action, at: max(deadline, now)))
    }

    public func cancel(_ timer: TimerHandle) {
        timers.remove(sequence: timer.sequence)
    }

    /// Timers scheduled and not yet fired or cancelled.
    public var pendingTimerCount: Int { timers.count }

    /// When the next timer will fire, if any.
    public var nextDeadline: MonotonicInstant? { timers.earliest?.deadline }

    // MARK: Descriptors (real ones, in real time)

    public func watch(fd: Int32, for interest: FDInterest, _ handler: @escaping (FDReadiness) -> Void) -> WatchHandle {
        watches.add(fd: fd, for: interest, handler)
    }

    public func update(_ watch: WatchHandle, interest: FDInterest) {
        watches.update(watch, interest: interest)
    }

    public func unwatch(_ watch: WatchHandle) {
        watches.remove(watch)
    }

    // MARK: Running

    public func stop() {
        stopRequested = true
    }

    /// Fires the next timer, first moving the clock to its deadline. Returns false if there is none.
    /// A single step is not a run: it neither honours nor clears a pending `stop()`.
    @discardableResult
    public func step() -> Bool {
        precondition(!isRunning, "VirtualLoop.step called re-entrantly from a callback")
        isRunning = true
        defer { isRunning = false }
        return fireNext()
    }

    /// Fires every timer due up to `deadline`, including those scheduled meanwhile, then leaves the
    /// clock at `deadline`. If a callback calls `stop()`, returns at once with the clock at that
    /// callback's instant. A timer that keeps rescheduling itself with zero delay never lets this
    /// return; that is a bug in the timer's owner.
    public func run(until deadline: MonotonicInstant) {
        beginRun()
        defer { endRun() }
        while !stopRequested {
            if watches.anyInterest {
                guard now < deadline || timers.earliest.map({ $0.deadline <= now }) == true else { break }
                serveDescriptors(until: deadline)
            } else if let next = timers.earliest, next.deadline <= deadline {
                fireNext()
            } else {
                break
            }
        }
        if !stopRequested, deadline > now { now = deadline }
    }

    /// `run(until: now + duration)`.
    public func run(for duration: Duration) {
        run(until: now + duration)
    }

    /// Fires timers, jumping from one to the next, until none is left, `stop()` is called, or
    /// `limit` callbacks have run (repeating timers never run out). Returns whether it became idle.
    public func runUntilIdle(limit: Int = 1_000_000) -> Bool {
        beginRun()
        defer { endRun() }
        var fired = 0
        while !stopRequested, fired < limit {
            if watches.anyInterest {
                serveDescriptors(until: .init(nanoseconds: .max))
            } else if !fireNext() {
                break
            }
            fired += 1
        }
        return timers.isEmpty && !watches.anyInterest
    }

    /// One round while descriptors are watched: polls them for real, at most until the next timer or
    /// `deadline` (and never long, so `stop()` and new timers are seen), moves the clock on by the real
    /// time that took, serves what is ready, then fires the timers now due.
    private func serveDescriptors(until deadline: MonotonicInstant) {
        let limit = min(timers.earliest?.deadline ?? deadline, deadline)
        let wait = max(0, min(limit.nanoseconds &- now.nanoseconds, Self.longestPoll.nanosecondsValue))
        let started = KernelClock.monotonicNanoseconds()
        watches.poll(timeoutMilliseconds: Int32((wait + 999_999) / 1_000_000))
        let elapsed = Duration.nanoseconds(KernelClock.monotonicNanoseconds() - started)
        now = max(now, min(limit, now + elapsed))
        watches.dispatchReady { !stopRequested }
        while !stopRequested, let next = timers.earliest, next.deadline <= now { fireNext() }
    }

    /// The longest a single poll waits, so a run notices its deadline and new timers promptly.
    private static let longestPoll: Duration = .milliseconds(50)

    @discardableResult
    private func fireNext() -> Bool {
        guard let timer = timers.popEarliest() else { return false }
        // Popping one at a time in (deadline, sequence) order gives the same order as the real
        // loop's per-tick fence: work scheduled now sorts after everything already due now.
        if timer.deadline > now { now = timer.deadline }
        steps += 1
        timer.payload()
        return true
    }

    private func beginRun() {
        precondition(!isRunning, "VirtualLoop run or step called re-entrantly from a callback")
        isRunning = true
    }

    /// A stop request ends the run it interrupted (or, if made while idle, the next one) and is
    /// then forgotten.
    private func endRun() {
        isRunning = false
        stopRequested = false
    }
}
