/// Something played once over the state's pattern, which resumes from its start afterwards.
package enum IndicatorSignal: Equatable, Sendable, CustomStringConvertible {
    /// `find`: blink and beep for a minute so staff can locate the badge.
    case find
    /// `indicator test`: every pattern once, one after another.
    case test
    /// A short press acknowledged the exposure signal.
    case acknowledged
    /// A long press: the state's flash count, and whether any exposure is recorded.
    case statusReport(IndicatorState, exposuresRecorded: Bool)
    /// The wearer's keys were shared with the health authority (issue 14's flow reports it).
    case keyShareSucceeded
    case keyShareFailed

    package var pattern: IndicatorPattern {
        switch self {
        case .find: .find
        case .test: IndicatorTest.pattern
        case .acknowledged: .acknowledged
        case .statusReport(let state, let recorded): .statusReport(flashes: state.flashCount, exposuresRecorded: recorded)
        case .keyShareSucceeded: .shareSucceeded
        case .keyShareFailed: .shareFailed
        }
    }

    /// A stable word for `--json`.
    package var name: String {
        switch self {
        case .find: "find"
        case .test: "test"
        case .acknowledged: "acknowledged"
        case .statusReport: "statusReport"
        case .keyShareSucceeded: "keyShareSucceeded"
        case .keyShareFailed: "keyShareFailed"
        }
    }

    package var description: String {
        switch self {
        case .find: "find: blinking and beeping every second for a minute"
        case .test: "indicator test: every pattern once"
        case .acknowledged: "acknowledged: lit for a second after a beep"
        case .statusReport(let state, let recorded):
            "status report: lit 1 s, then \(state.flashCount) slow flash(es) (\(state.meaning))"
                + (recorded ? ", then lit 2 s (exposures recorded)" : "")
        case .keyShareSucceeded: "keys shared: lit 3 s with one beep"
        case .keyShareFailed: "key share failed: five slow blinks, the first two with a beep"
        }
    }
}

/// What `indicator test` plays: each state's pattern once (flash counts without their long pause), then
/// each signal, each followed by a second of darkness.
package enum IndicatorTest {
    package struct Part: Equatable, Sendable {
        package var name: String
        /// When it starts, from the start of the test.
        package var offset: Duration
        package var length: Duration
    }

    static let pause = Duration.seconds(1)

    static let patterns: [(String, IndicatorPattern)] = [
        (IndicatorState.onAir.meaning, IndicatorState.onAir.pattern.trimmed(toEndWith: pause)),
        (IndicatorState.waitingForClock.meaning, IndicatorState.waitingForClock.pattern.trimmed(toEndWith: pause)),
        (IndicatorState.controllerFault.meaning, IndicatorState.controllerFault.pattern.trimmed(toEndWith: pause)),
        (IndicatorState.storageFault.meaning, IndicatorState.storageFault.pattern.trimmed(toEndWith: pause)),
        (IndicatorState.exposureFound.meaning, IndicatorPattern.sequence([IndicatorPattern(IndicatorPattern.exposure.steps, cycles: 1),
                                                                         IndicatorPattern([.init(pause, .dark)], cycles: 1)])),
        ("key share succeeded", .shareSucceeded),
        ("key share failed", .shareFailed),
        ("acknowledged", .acknowledged),
        ("find (3 s of its minute)", IndicatorPattern.sequence([IndicatorPattern(IndicatorPattern.find.steps, cycles: 3),
                                                               IndicatorPattern([.init(pause, .dark)], cycles: 1)])),
    ]

    /// The parts in the order they play.
    package static let parts: [Part] = {
        var offset = Duration.zero
        return patterns.map { name, pattern in
            let length = pattern.length ?? pattern.cycleLength
            defer { offset += length }
            return Part(name: name, offset: offset, length: length)
        }
    }()

    static let pattern = IndicatorPattern.sequence(patterns.map { $0.1 })
}
