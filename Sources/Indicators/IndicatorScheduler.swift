import EventLoop

/// Which pattern plays when, and so what the LED and buzzer do at any instant: the state's pattern,
/// repeating in its own rhythm, with a one-off signal (a find, a test, a press acknowledged) played over it.
/// A pure value on loop time: `IndicatorService` asks it for the levels now and for the next instant they
/// may change, and sets one timer for that; tests walk it step by step in virtual time.
///
/// A state that stays the same keeps its rhythm however often it is shown again; a new state starts its
/// pattern at once. After a signal the state's pattern starts afresh.
struct IndicatorScheduler: Sendable {
    package private(set) var state: IndicatorState
    /// Where the state's pattern starts (or started).
    private var stateStart: MonotonicInstant
    /// The signal playing, if any, and when it began.
    private var playing: (signal: IndicatorSignal, start: MonotonicInstant)?

    init(state: IndicatorState = .starting, at now: MonotonicInstant) {
        self.state = state
        stateStart = now
    }

    /// The signal playing at `now`, nil once it is over.
    package func signal(at now: MonotonicInstant) -> IndicatorSignal? {
        guard let playing, let end = signalEnd, now >= playing.start, now < end else { return nil }
        return playing.signal
    }

    /// Shows `state` from `now`; the state already shown keeps its rhythm.
    package mutating func show(_ newState: IndicatorState, at now: MonotonicInstant) {
        guard newState != state else { return }
        state = newState
        stateStart = now
    }

    /// Plays `signal` from `now`, in place of any signal still playing.
    package mutating func play(_ signal: IndicatorSignal, at now: MonotonicInstant) {
        playing = (signal, now)
    }

    /// Ends the signal playing (a press stops a find); the state's pattern starts afresh at `now`.
    package mutating func stopSignal(at now: MonotonicInstant) {
        guard signal(at: now) != nil else { return }
        playing = nil
        stateStart = now
    }

    /// Forgets a signal that is over, so the state's pattern runs on from where the signal ended.
    mutating func advance(to now: MonotonicInstant) {
        guard let end = signalEnd, now >= end else { return }
        stateStart = max(stateStart, end)
        playing = nil
    }

    package func levels(at now: MonotonicInstant) -> IndicatorLevels {
        if let playing, signal(at: now) != nil { return playing.signal.pattern.levels(at: now - playing.start) }
        return state.pattern.levels(at: now - stateOrigin(at: now))
    }

    /// The next instant after `now` at which the levels may change (a step boundary).
    func nextStep(after now: MonotonicInstant) -> MonotonicInstant {
        if let playing, signal(at: now) != nil {
            return playing.start + playing.signal.pattern.boundary(after: now - playing.start)
        }
        let origin = stateOrigin(at: now)
        let next = origin + state.pattern.boundary(after: now - origin)
        // A signal due to start later (a timeline drawn ahead) interrupts the state's pattern.
        if let playing, playing.start > now { return min(next, playing.start) }
        return next
    }

    private var signalEnd: MonotonicInstant? {
        playing.map { $0.start + ($0.signal.pattern.length ?? .zero) }
    }

    /// Where the state's pattern counts from at `now`: after a signal that has ended, its end.
    private func stateOrigin(at now: MonotonicInstant) -> MonotonicInstant {
        guard let end = signalEnd, end <= now else { return stateStart }
        return max(stateStart, end)
    }
}
