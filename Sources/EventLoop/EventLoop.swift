/// The single-threaded scheduler every service is written against.
///
/// Two implementations exist: `PollLoop` (real time, `poll(2)` over descriptors) and `VirtualLoop`
/// (simulated time that jumps straight to the next timer). A service that only uses this protocol
/// runs unchanged on both, which is what lets tests and `enbeacon demo` live through days of agent
/// life in seconds.
///
/// The contract both implementations keep:
/// - Everything happens on one thread; callbacks never run concurrently or re-entrantly.
/// - Timers fire in deadline order; timers with the same deadline fire in the order they were
///   scheduled (FIFO), so simulations are deterministic.
/// - A timer scheduled from a callback, even with zero delay or a past deadline, runs after all
///   work that was already due, never inside the current callback.
/// - Cancelling works from anywhere, including a callback cancelling another timer due in the
///   same tick; cancelling a timer that already fired is a no-op.
/// - A descriptor handler may unwatch and close its own descriptor (or any other); a removed watch
///   is never called again, even if it had been reported ready in the same `poll`.
public protocol EventLoop: AnyObject {
    /// The current monotonic time: CLOCK_MONOTONIC on the real loop, simulated on the virtual one.
    var now: MonotonicInstant { get }

    /// The raw, untrusted wall clock (CLOCK_REALTIME), in nanoseconds since the Unix epoch.
    ///
    /// Only the Clock service should read this: it decides whether the value can be trusted and
    /// notices jumps. It is here so that the virtual loop can simulate a wall clock, jumps included.
    var unixNanoseconds: Int64 { get }

    /// Sets the wall clock, for `time set` on a board without NTP or RTC. The real loop sets the system's
    /// CLOCK_REALTIME (which needs CAP_SYS_TIME), so the rest of the system (TLS certificate checks, logs)
    /// agrees with the badge; the virtual loop moves its simulated wall clock.
    func setWallClock(unixNanoseconds: Int64) throws(WallClockError)

    /// How long a `SlicedJob` on this loop should work before yielding, unless it asks otherwise.
    var defaultSliceBudget: SliceBudget { get }

    /// The longest one turn of the loop has taken (its callbacks, not its waits), where callbacks take real
    /// time; nil on a loop of virtual time.
    var longestTurn: Duration? { get }

    /// Runs `action` once at `deadline`, or as soon as possible after it; a deadline in the past
    /// means "now", after already-due work.
    @discardableResult
    func schedule(at deadline: MonotonicInstant, _ action: @escaping () -> Void) -> TimerHandle

    /// Prevents a timer from firing. No-op if it already fired or was cancelled.
    func cancel(_ timer: TimerHandle)

    /// Calls `handler` whenever `fd` has a condition in `interest`, or an error or hangup.
    /// The loop never closes `fd`; its owner does, after `unwatch`.
    func watch(fd: Int32, for interest: FDInterest, _ handler: @escaping (FDReadiness) -> Void) -> WatchHandle

    /// Changes what a watch listens for, e.g. `[.readable, .writable]` only while output is queued.
    /// No-op for a watch that no longer exists.
    func update(_ watch: WatchHandle, interest: FDInterest)

    /// Removes a watch; its handler is never called again. No-op if it was already removed.
    func unwatch(_ watch: WatchHandle)

    /// Makes the running `run` return once the current callback returns. Called while the loop is
    /// not running, it makes the next `run` return at once.
    func stop()
}

extension EventLoop {
    /// Runs `action` once after `delay`; zero (or negative) means "after the work already due".
    @discardableResult
    public func schedule(after delay: Duration, _ action: @escaping () -> Void) -> TimerHandle {
        schedule(at: now + delay, action)
    }
}
