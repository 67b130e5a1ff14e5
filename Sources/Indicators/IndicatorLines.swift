import EventLoop
import SystemIO

/// An LED or a buzzer the indicator switches: a GPIO output line, or a virtual one.
package protocol IndicatorOutput: AnyObject {
    /// Where it is, for `status` and the log: `gpiochip0:17 (GPIO17)`, `virtual`.
    var location: String { get }
    /// Lights (sounds) it, or not.
    func set(_ on: Bool) throws(SystemError)
    /// Gives the line back; nothing is set after this.
    func release()
}

/// The badge's button: a GPIO input line with edge events, or a virtual one.
package protocol IndicatorButton: AnyObject {
    var location: String { get }
    /// Reports every edge, pressed or released, with the time it happened on the loop's clock, until `release`.
    func start(_ edge: @escaping (_ pressed: Bool, _ at: MonotonicInstant) -> Void)
    func release()
}

/// The indicator lines a board has, and why those configured but missing are missing.
package struct IndicatorLines {
    package var led: (any IndicatorOutput)?
    package var buzzer: (any IndicatorOutput)?
    package var button: (any IndicatorButton)?
    /// One line per configured line that could not be used, in words: `LED (indicator.led = …): …`.
    package var problems: [String] = []

    package init(led: (any IndicatorOutput)? = nil, buzzer: (any IndicatorOutput)? = nil,
                button: (any IndicatorButton)? = nil, problems: [String] = []) {
        self.led = led
        self.buzzer = buzzer
        self.button = button
        self.problems = problems
    }

    package var isEmpty: Bool { led == nil && buzzer == nil && button == nil }
}
