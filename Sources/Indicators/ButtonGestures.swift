import EventLoop

/// Turns a button's raw edges, bounces and all, into the two gestures the badge knows: a short press
/// (released within 2 s) and a long press (held for 2 s, reported while still held, so the wearer sees the
/// answer without guessing when to let go).
///
/// A level counts once it has held for `settleTime` with no edge after it; shorter blips are bounces. Pure:
/// the caller feeds edges with their times (the kernel's timestamps, so a busy loop does not shorten a press)
/// and calls `advance(to:)` at `nextDeadline`.
struct ButtonGestures: Sendable {
    enum Gesture: Equatable, Sendable {
        case shortPress
        case longPress
    }

    static let settleTime = Duration.milliseconds(30)
    static let longPressTime = Duration.seconds(2)

    /// The level of the last edge seen and when it came.
    private var raw: (pressed: Bool, since: MonotonicInstant)?
    /// The debounced level.
    private(set) var isPressed = false
    /// When the debounced press began, and whether it has been reported as a long press.
    private var press: (start: MonotonicInstant, reportedLong: Bool)?

    init() {}

    /// An edge: the button is now pressed (or released) as of `time`. Edges come in time order; what had
    /// settled before this edge is decided first.
    mutating func edge(pressed: Bool, at time: MonotonicInstant) -> [Gesture] {
        let gestures = advance(to: time)
        raw = (pressed, time)
        return gestures
    }

    /// When `advance` should next be called, if anything is pending.
    var nextDeadline: MonotonicInstant? {
        // An edge still settling decides first: a release before the 2 s mark makes a short press of it.
        if let raw, raw.pressed != isPressed { return raw.since + Self.settleTime }
        if let press, isPressed, !press.reportedLong { return press.start + Self.longPressTime }
        return nil
    }

    /// Settles what has held long enough by `now`, and returns the gestures that completed.
    mutating func advance(to now: MonotonicInstant) -> [Gesture] {
        var gestures: [Gesture] = []
        if let raw, raw.pressed != isPressed, now >= raw.since + Self.settleTime {
            isPressed = raw.pressed
            if raw.pressed {
                press = (raw.since, false)
            } else if let press {
                if !press.reportedLong { gestures.append(.shortPress) }
                self.press = nil
            }
        }
        // Held for 2 s: unless a release before then is still settling (it decides: a bounce, or the end).
        if let press, !press.reportedLong, isPressed, now >= press.start + Self.longPressTime,
           raw.map({ $0.pressed || $0.since >= press.start + Self.longPressTime }) ?? true {
            self.press?.reportedLong = true
            gestures.append(.longPress)
        }
        return gestures
    }
}
