import EventLoop
import SystemIO

/// The virtual board's indicator: an LED, a buzzer and a button with no hardware behind them. The agent
/// drives them exactly as it drives GPIO lines; `status` shows their levels, the demo and tests read them and
/// press the button.
public final class VirtualIndicator {
    public let led = VirtualIndicatorOutput()
    public let buzzer = VirtualIndicatorOutput()
    public let button: VirtualIndicatorButton

    public init(loop: any EventLoop) {
        button = VirtualIndicatorButton(loop: loop)
    }

    public var lines: IndicatorLines { IndicatorLines(led: led, buzzer: buzzer, button: button) }
}

/// A virtual LED or buzzer: its level and how often it changed.
public final class VirtualIndicatorOutput: IndicatorOutput {
    public let location = "virtual"
    public private(set) var isOn = false
    /// Switches on and off so far.
    public private(set) var changes = 0
    public private(set) var isReleased = false

    public init() {}

    public func set(_ on: Bool) throws(SystemError) {
        precondition(!isReleased, "a released indicator line is not set")
        if on != isOn { changes += 1 }
        isOn = on
    }

    public func release() { isReleased = true }
}

/// A virtual button: `press()` and `release()` make edges at the loop's time now.
public final class VirtualIndicatorButton: IndicatorButton {
    public let location = "virtual"
    private let loop: any EventLoop
    private var report: ((Bool, MonotonicInstant) -> Void)?

    public init(loop: any EventLoop) { self.loop = loop }

    public func start(_ edge: @escaping (Bool, MonotonicInstant) -> Void) { report = edge }

    public func press() { report?(true, loop.now) }
    public func letGo() { report?(false, loop.now) }

    public func release() { report = nil }
}
