/// The indicator as `status` and `indicator` show it.
package struct IndicatorReport: Equatable, Sendable {
    package struct Output: Equatable, Sendable {
        package var location: String
        package var isOn: Bool

        package init(location: String, isOn: Bool) {
            self.location = location
            self.isOn = isOn
        }
    }

    package var state: IndicatorState
    /// A find, test or other one-off playing over the state.
    package var signal: IndicatorSignal?
    package var led: Output?
    package var buzzer: Output?
    /// Where the button is, if the badge has one.
    package var button: String?
    /// Configured lines that could not be used, and why.
    package var problems: [String]
    package var exposuresToAcknowledge: Int

    package init(state: IndicatorState, signal: IndicatorSignal?, led: Output?, buzzer: Output?, button: String?,
                 problems: [String], exposuresToAcknowledge: Int) {
        self.state = state
        self.signal = signal
        self.led = led
        self.buzzer = buzzer
        self.button = button
        self.problems = problems
        self.exposuresToAcknowledge = exposuresToAcknowledge
    }

    /// Some line is in use.
    package var isPresent: Bool { led != nil || buzzer != nil || button != nil }
}
