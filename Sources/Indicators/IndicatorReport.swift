/// The indicator as `status` and `indicator` show it.
public struct IndicatorReport: Equatable, Sendable {
    public struct Output: Equatable, Sendable {
        public var location: String
        public var isOn: Bool

        package init(location: String, isOn: Bool) {
            self.location = location
            self.isOn = isOn
        }
    }

    public var state: IndicatorState
    /// A find, test or other one-off playing over the state.
    public var signal: IndicatorSignal?
    public var led: Output?
    public var buzzer: Output?
    /// Where the button is, if the badge has one.
    public var button: String?
    /// Configured lines that could not be used, and why.
    public var problems: [String]
    public var exposuresToAcknowledge: Int

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
    public var isPresent: Bool { led != nil || buzzer != nil || button != nil }
}
