import EventLoop
import SystemIO

/// The virtual board's indicator: an LED, a buzzer and a button with no hardware behind them. The agent
/// drives them exactly as it drives GPIO lines; `status` shows their levels, the demo and tests read them and
/// press the button.
package final class VirtualIndicator {
    package let led = VirtualIndicatorOutput()
    package let buzzer = VirtualIndicatorOutput()
    package let button: VirtualIndicatorButton

    package init(loop: any EventLoop) {
        button = VirtualIndicatorButton(loop: loop)
    }

    package var lines: IndicatorLines { IndicatorLines(led: led, buzzer: buzzer, button: button) }
}

/// A virtual LED or buzzer: its level and how often it changed.
package final class VirtualIndicatorOutput: IndicatorOutput {
    package let location = "virtual"
    package private(set) var isOn = false
    /// Switches on and off so far.
    package private(set) var changes = 0
    private(set) var isReleased = false

    init() {}

    package func set(_ on: Bool) throws(SystemError) {
        precondition(!isReleased, "a released indicator line is not set")
        if on != isOn { changes += 1 }
        isOn = on
    }

    package func release() { isReleased = true }
}

/// A virtual button: `press()` and `release()` make edges at the loop's time now.
package final class VirtualIndicatorButton: IndicatorButton {
    package let location = "virtual"
    private let loop: any EventLoop
    private var report: ((Bool, MonotonicInstant) -> Void)?

    init(loop: any EventLoop) { self.loop = loop }

    package func start(_ edge: @escaping (Bool, MonotonicInstant) -> Void) { report = edge }

    package func press() { report?(true, loop.now) }
    package func letGo() { report?(false, loop.now) }

    package func release() { report = nil }
}
