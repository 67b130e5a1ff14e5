import EventLoop
@testable import Indicators
import Testing

extension IndicatorScheduler {
    /// Every change of levels from `start` (its levels first) up to `end`, as a playing indicator shows them
    /// when nothing new is shown or played in between: the service's timer, step by step.
    func timeline(from start: MonotonicInstant, until end: MonotonicInstant) -> [(at: MonotonicInstant, levels: IndicatorLevels)] {
        var copy = self
        copy.advance(to: start)
        var changes = [(at: start, levels: copy.levels(at: start))]
        var now = start
        while true {
            now = copy.nextStep(after: now)
            guard now < end else { break }
            copy.advance(to: now)
            let levels = copy.levels(at: now)
            if levels != changes[changes.count - 1].levels { changes.append((now, levels)) }
        }
        return changes
    }
}

/// The pattern scheduler in virtual time: every state's and signal's on/off timeline, checked change by change.
@Suite struct IndicatorPatternTests {
    static let t0 = MonotonicInstant(nanoseconds: 7_000_000_000)

    /// A timeline as (milliseconds from t0, "-" dark, "L" LED lit, "LB" lit and beeping).
    static func timeline(_ scheduler: IndicatorScheduler, seconds: Int, from start: MonotonicInstant = t0) -> [(Int64, String)] {
        timeline(scheduler, for: .seconds(seconds), from: start)
    }

    static func timeline(_ scheduler: IndicatorScheduler, for duration: Duration, from start: MonotonicInstant = t0) -> [(Int64, String)] {
        scheduler.timeline(from: start, until: start + duration).map { change in
            ((change.at - t0).nanosecondsValue / 1_000_000,
             change.levels.led ? (change.levels.buzzer ? "LB" : "L") : (change.levels.buzzer ? "B" : "-"))
        }
    }

    static func expect(_ actual: [(Int64, String)], _ expected: [(Int64, String)], sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(actual.map { "\($0.0) \($0.1)" } == expected.map { "\($0.0) \($0.1)" }, sourceLocation: sourceLocation)
    }

    static func flashes(_ count: Int, cycles: Int) -> [(Int64, String)] {
        (0..<cycles).flatMap { cycle in
            (0..<count).flatMap { i -> [(Int64, String)] in
                let on = Int64(cycle * 5000 + i * 500)
                return [(on, "L"), (on + 150, "-")]
            }
        }
    }

    @Test("on air: one 0.15 s flash every 5 s; clock, controller, storage: two, three, four flashes")
    func flashCountStates() {
        for (state, count) in [(IndicatorState.onAir, 1), (.waitingForClock, 2), (.controllerFault, 3), (.storageFault, 4)] {
            let scheduler = IndicatorScheduler(state: state, at: Self.t0)
            Self.expect(Self.timeline(scheduler, seconds: 15), Self.flashes(count, cycles: 3))
            #expect(state.flashCount == count)
        }
    }

    @Test("starting and switched off: dark, looked at again every 5 s")
    func darkStates() {
        for state in [IndicatorState.starting, .switchedOff] {
            let scheduler = IndicatorScheduler(state: state, at: Self.t0)
            Self.expect(Self.timeline(scheduler, seconds: 60), [(0, "-")])
            #expect(scheduler.nextStep(after: Self.t0) == Self.t0 + .seconds(5))
        }
    }

    @Test("exposure found: 0.2 s on, 0.2 s off without pause, three beeps at the start of every 10 s, repeating")
    func exposureFound() {
        let scheduler = IndicatorScheduler(state: .exposureFound, at: Self.t0)
        var expected: [(Int64, String)] = []
        for cycle in 0..<3 {
            for i in 0..<25 {
                let on = Int64(cycle * 10_000 + i * 400)
                expected += [(on, i < 3 ? "LB" : "L"), (on + 200, "-")]
            }
        }
        Self.expect(Self.timeline(scheduler, seconds: 30), expected)
    }

    @Test("find: a beep and 0.5 s lit every second for a minute, then the state's pattern from its start")
    func find() {
        var scheduler = IndicatorScheduler(state: .onAir, at: Self.t0)
        scheduler.play(.find, at: Self.t0 + .milliseconds(1_000))
        var expected: [(Int64, String)] = [(0, "L"), (150, "-")]
        for second in 0..<60 {
            let at = Int64(1_000 + second * 1_000)
            expected += [(at, "LB"), (at + 150, "L"), (at + 500, "-")]
        }
        // After the minute (at 61 s) on air resumes with its flash at once, then every 5 s.
        expected += [(61_000, "L"), (61_150, "-"), (66_000, "L"), (66_150, "-")]
        Self.expect(Self.timeline(scheduler, seconds: 70), expected)
        #expect(scheduler.signal(at: Self.t0 + .seconds(60)) == .find)
        #expect(scheduler.signal(at: Self.t0 + .seconds(61)) == nil)
    }

    @Test("key share succeeded, failed, a press acknowledged: once each, then the state again")
    func oneOffSignals() {
        let cases: [(IndicatorSignal, [(Int64, String)], Int64)] = [
            (.keyShareSucceeded, [(0, "LB"), (300, "L"), (3_000, "-")], 4_000),
            (.keyShareFailed, [(0, "LB"), (600, "-"), (1_000, "LB"), (1_600, "-"), (2_000, "L"), (2_600, "-"),
                               (3_000, "L"), (3_600, "-"), (4_000, "L"), (4_600, "-")], 6_000),
            (.acknowledged, [(0, "LB"), (100, "L"), (1_000, "-")], 1_500),
        ]
        for (signal, steps, length) in cases {
            var scheduler = IndicatorScheduler(state: .waitingForClock, at: Self.t0)
            scheduler.play(signal, at: Self.t0)
            let resumed: [(Int64, String)] = [(length, "L"), (length + 150, "-"), (length + 500, "L"), (length + 650, "-")]
            Self.expect(Self.timeline(scheduler, for: .milliseconds(length + 1_000)), steps + resumed)
        }
    }

    @Test("a long press's status report: lit 1 s, the state's flashes slowly, lit 2 s if exposures are recorded")
    func statusReport() {
        var scheduler = IndicatorScheduler(state: .switchedOff, at: Self.t0)
        scheduler.play(.statusReport(.controllerFault, exposuresRecorded: true), at: Self.t0)
        Self.expect(Self.timeline(scheduler, seconds: 10),
                    [(0, "L"), (1_000, "-"), (2_000, "L"), (2_300, "-"), (2_800, "L"), (3_100, "-"), (3_600, "L"),
                     (3_900, "-"), (4_900, "L"), (6_900, "-")])
        scheduler.play(.statusReport(.onAir, exposuresRecorded: false), at: Self.t0 + .seconds(20))
        Self.expect(Self.timeline(scheduler, seconds: 10, from: Self.t0 + .seconds(20)),
                    [(20_000, "L"), (21_000, "-"), (22_000, "L"), (22_300, "-")])
    }

    @Test("the same state shown again keeps its rhythm; a new state starts its pattern at once")
    func stateChanges() {
        var scheduler = IndicatorScheduler(state: .onAir, at: Self.t0)
        scheduler.show(.onAir, at: Self.t0 + .milliseconds(2_500))
        #expect(scheduler.nextStep(after: Self.t0 + .milliseconds(2_500)) == Self.t0 + .seconds(5))
        scheduler.show(.storageFault, at: Self.t0 + .milliseconds(2_500))
        #expect(scheduler.levels(at: Self.t0 + .milliseconds(2_500)) == .lit)
        Self.expect(Self.timeline(scheduler, seconds: 2, from: Self.t0 + .milliseconds(2_500)),
                    [(2_500, "L"), (2_650, "-"), (3_000, "L"), (3_150, "-"), (3_500, "L"), (3_650, "-"), (4_000, "L"),
                     (4_150, "-")])
    }

    @Test("a signal stopped early gives way to the state's pattern from its start")
    func stoppedSignal() {
        var scheduler = IndicatorScheduler(state: .onAir, at: Self.t0)
        scheduler.play(.find, at: Self.t0)
        scheduler.stopSignal(at: Self.t0 + .milliseconds(2_300))
        #expect(scheduler.signal(at: Self.t0 + .milliseconds(2_300)) == nil)
        Self.expect(Self.timeline(scheduler, seconds: 6, from: Self.t0 + .milliseconds(2_300)),
                    [(2_300, "L"), (2_450, "-"), (7_300, "L"), (7_450, "-")])
    }

    @Test("indicator test plays every pattern once: its parts line up with the patterns they name")
    func testSequence() {
        var scheduler = IndicatorScheduler(state: .starting, at: Self.t0)
        scheduler.play(.test, at: Self.t0)
        let parts = IndicatorTest.parts
        #expect(parts.map(\.name) == ["on air", "waiting for a trusted clock", "Bluetooth controller fault", "storage fault",
                                      "exposure found", "key share succeeded", "key share failed", "acknowledged",
                                      "find (3 s of its minute)"])
        let end = parts.last!.offset + parts.last!.length
        #expect(end == .milliseconds(34_100))
        let patterns: [IndicatorPattern] = [IndicatorState.onAir.pattern, IndicatorState.waitingForClock.pattern,
                                            IndicatorState.controllerFault.pattern, IndicatorState.storageFault.pattern,
                                            IndicatorState.exposureFound.pattern, IndicatorSignal.keyShareSucceeded.pattern,
                                            IndicatorSignal.keyShareFailed.pattern, IndicatorSignal.acknowledged.pattern,
                                            IndicatorSignal.find.pattern]
        for (part, pattern) in zip(parts, patterns) {
            // Every step of the part's first cycle (up to the darkness that ends it) shows as in the pattern.
            var offset = Duration.zero
            for step in pattern.steps where offset < part.length - .seconds(1) {
                #expect(scheduler.levels(at: Self.t0 + part.offset + offset) == step.levels, "\(part.name) at \(offset)")
                offset += step.duration
            }
            #expect(scheduler.levels(at: Self.t0 + part.offset + part.length - .milliseconds(1)) == .dark, "\(part.name) ends dark")
        }
        #expect(scheduler.signal(at: Self.t0 + end - .milliseconds(1)) == .test)
        #expect(scheduler.signal(at: Self.t0 + end) == nil)
    }

    @Test("the state follows the inputs, most urgent first")
    func statePrecedence() {
        let onAir = IndicatorInputs(broadcast: .onAir)
        #expect(onAir.state == .onAir)
        #expect(IndicatorInputs(broadcast: .waitingForController).state == .starting)
        #expect(IndicatorInputs(broadcast: .waitingForController, controllerFault: true).state == .controllerFault)
        #expect(IndicatorInputs(broadcast: .waitingForClock).state == .waitingForClock)
        #expect(IndicatorInputs(broadcast: .waitingForClock, controllerFault: true).state == .controllerFault)
        #expect(IndicatorInputs(broadcast: .switchedOff).state == .switchedOff)
        #expect(IndicatorInputs(broadcast: .onAir, storageFault: true).state == .storageFault)
        #expect(IndicatorInputs(broadcast: .keyNotStored).state == .storageFault)
        #expect(IndicatorInputs(broadcast: .keyNotStored, controllerFault: true).state == .storageFault)
        #expect(IndicatorInputs(broadcast: .switchedOff, controllerFault: true, storageFault: true,
                                exposuresToAcknowledge: 1).state == .exposureFound)
    }
}
