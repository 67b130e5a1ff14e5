import EventLoop

/// An on/off timeline for the LED and the buzzer: one cycle of steps, played a number of times or until
/// something else replaces it. A value: `levels(at:)` and `boundary(after:)` answer for any offset into
/// the pattern, so a pattern is checked without a loop and played by one timer at a time.
package struct IndicatorPattern: Equatable, Sendable {
    struct Step: Equatable, Sendable {
        package var duration: Duration
        package var levels: IndicatorLevels

        init(_ duration: Duration, _ levels: IndicatorLevels) {
            precondition(duration > .zero, "an indicator step lasts some time")
            self.duration = duration
            self.levels = levels
        }
    }

    /// One cycle.
    var steps: [Step]
    /// How many cycles; nil: until replaced (a state's pattern).
    var cycles: Int?

    init(_ steps: [Step], cycles: Int? = nil) {
        precondition(!steps.isEmpty, "an indicator pattern has at least one step")
        precondition(cycles.map { $0 > 0 } ?? true, "a pattern plays at least once")
        self.steps = steps
        self.cycles = cycles
    }

    var cycleLength: Duration { steps.reduce(.zero) { $0 + $1.duration } }

    /// How long the whole pattern plays; nil for one that repeats until replaced.
    package var length: Duration? { cycles.map { cycleLength * $0 } }

    /// The levels `offset` into the pattern; dark once a finite pattern is over.
    package func levels(at offset: Duration) -> IndicatorLevels {
        guard offset >= .zero, length.map({ offset < $0 }) ?? true else { return .dark }
        var rest = offset.nanosecondsValue % cycleLength.nanosecondsValue
        for step in steps {
            let nanoseconds = step.duration.nanosecondsValue
            if rest < nanoseconds { return step.levels }
            rest -= nanoseconds
        }
        return steps[steps.count - 1].levels
    }

    /// The first step boundary strictly after `offset`: when the levels may next change. For a finite
    /// pattern, never later than its end.
    func boundary(after offset: Duration) -> Duration {
        let cycle = cycleLength.nanosecondsValue
        let position = max(offset.nanosecondsValue, -1)
        if position < 0 { return .zero }
        let cycleStart = position / cycle * cycle
        var edge = cycleStart
        for step in steps {
            edge += step.duration.nanosecondsValue
            if edge > position { break }
        }
        let next = Duration.nanoseconds(edge)
        if let length { return min(next, max(length, .nanoseconds(position + 1))) }
        return next
    }

    /// The same cycle followed by `pause` of darkness (an `indicator test` part: a state's flashes without
    /// the long wait before they repeat).
    func trimmed(toEndWith pause: Duration) -> IndicatorPattern {
        var kept = steps
        while let last = kept.last, last.levels == .dark { kept.removeLast() }
        kept.append(Step(pause, .dark))
        return IndicatorPattern(kept, cycles: 1)
    }

    /// Patterns one after another, once each.
    static func sequence(_ parts: [IndicatorPattern]) -> IndicatorPattern {
        IndicatorPattern(parts.flatMap { part in (0..<(part.cycles ?? 1)).flatMap { _ in part.steps } }, cycles: 1)
    }
}

// The catalogue: what each state and signal looks like. Board/README.md describes the same for carers.
extension IndicatorPattern {
    static let flash = Duration.milliseconds(150)
    static let betweenFlashes = Duration.milliseconds(350)
    /// A state's flashes repeat every 5 s.
    static let stateCycle = Duration.seconds(5)

    /// `count` short flashes (0.15 s on, 0.35 s off), then darkness until `cycle` is over.
    static func flashes(_ count: Int, every cycle: Duration = stateCycle) -> IndicatorPattern {
        var steps: [Step] = []
        for i in 0..<count {
            steps.append(Step(flash, .lit))
            if i + 1 < count { steps.append(Step(betweenFlashes, .dark)) }
        }
        let used = steps.reduce(Duration.zero) { $0 + $1.duration }
        steps.append(Step(cycle - used, .dark))
        return IndicatorPattern(steps)
    }

    /// Dark, looked at again every 5 s.
    static let darkness = IndicatorPattern([Step(stateCycle, .dark)])

    /// Fast blinking (0.2 s on, 0.2 s off) for 10 s, the buzzer sounding with the first three flashes.
    static let exposure = IndicatorPattern((0..<25).flatMap { i in
        [Step(.milliseconds(200), i < 3 ? .beeping : .lit), Step(.milliseconds(200), .dark)]
    })

    /// Half a second lit with a short beep, half a second dark, for a minute.
    static let find = IndicatorPattern([Step(.milliseconds(150), .beeping), Step(.milliseconds(350), .lit),
                                        Step(.milliseconds(500), .dark)], cycles: 60)

    /// Lit for 3 s with one beep, then 1 s dark.
    static let shareSucceeded = IndicatorPattern([Step(.milliseconds(300), .beeping), Step(.milliseconds(2700), .lit),
                                                  Step(.seconds(1), .dark)], cycles: 1)

    /// Five slow blinks (0.6 s on, 0.4 s off), the first two with a beep, then 1 s dark.
    static let shareFailed = IndicatorPattern(
        (0..<5).flatMap { i in [Step(.milliseconds(600), i < 2 ? .beeping : .lit), Step(.milliseconds(400), .dark)] }
            + [Step(.seconds(1), .dark)], cycles: 1)

    /// A button press took: lit for 1 s after a short beep, then half a second dark.
    static let acknowledged = IndicatorPattern([Step(.milliseconds(100), .beeping), Step(.milliseconds(900), .lit),
                                                Step(.milliseconds(500), .dark)], cycles: 1)

    /// The answer to a long press: lit 1 s, dark 1 s, then the state's flash count slowly (0.3 s on, 0.5 s
    /// off), then 2 s lit if any exposure is recorded, then 1 s dark.
    static func statusReport(flashes count: Int, exposuresRecorded: Bool) -> IndicatorPattern {
        var steps = [Step(.seconds(1), .lit), Step(.seconds(1), .dark)]
        for _ in 0..<count { steps += [Step(.milliseconds(300), .lit), Step(.milliseconds(500), .dark)] }
        if exposuresRecorded { steps += [Step(.milliseconds(500), .dark), Step(.seconds(2), .lit)] }
        steps.append(Step(.seconds(1), .dark))
        return IndicatorPattern(steps, cycles: 1)
    }
}
