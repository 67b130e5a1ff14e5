import EventLoop
@testable import Indicators
import Testing

/// Debouncing and the two gestures, fed edge by edge with their times as the kernel stamps them.
@Suite struct ButtonGesturesTests {
    static func at(_ milliseconds: Int64) -> MonotonicInstant { MonotonicInstant(nanoseconds: milliseconds * 1_000_000) }

    /// Feeds `edges` (milliseconds, pressed) and calls `advance` at every deadline up to `until`, as the
    /// service's timer does; returns each gesture with the time it was recognised.
    static func run(_ edges: [(Int64, Bool)], until end: Int64) -> [(Int64, ButtonGestures.Gesture)] {
        var gestures = ButtonGestures()
        var seen: [(Int64, ButtonGestures.Gesture)] = []
        var pending = edges[...]
        while true {
            let deadline = gestures.nextDeadline.map { $0.nanoseconds / 1_000_000 }
            if let (time, pressed) = pending.first, deadline.map({ time <= $0 }) ?? true {
                pending.removeFirst()
                seen += gestures.edge(pressed: pressed, at: at(time)).map { (time, $0) }
            } else if let deadline, deadline <= end {
                seen += gestures.advance(to: at(deadline)).map { (deadline, $0) }
            } else {
                return seen
            }
        }
    }

    static func describe(_ gestures: [(Int64, ButtonGestures.Gesture)]) -> [String] {
        gestures.map { "\($0.1) at \($0.0)" }
    }

    @Test("a clean press and release within 2 s is a short press, recognised 30 ms after the release")
    func shortPress() {
        #expect(Self.describe(Self.run([(1_000, true), (1_400, false)], until: 10_000)) == ["shortPress at 1430"])
    }

    @Test("a contact that bounces on the way down and up is still one short press")
    func bouncingPress() {
        let edges: [(Int64, Bool)] = [(1_000, true), (1_002, false), (1_004, true), (1_009, false), (1_011, true),
                                      (1_500, false), (1_503, true), (1_506, false)]
        #expect(Self.describe(Self.run(edges, until: 10_000)) == ["shortPress at 1536"])
    }

    @Test("blips shorter than 30 ms are bounces, not presses")
    func blipsAreIgnored() {
        let edges: [(Int64, Bool)] = [(1_000, true), (1_010, false), (2_000, true), (2_029, false)]
        #expect(Self.run(edges, until: 10_000).isEmpty)
    }

    @Test("held for 2 s: a long press, reported while still held; letting go later adds nothing")
    func longPress() {
        #expect(Self.describe(Self.run([(1_000, true), (5_000, false)], until: 10_000)) == ["longPress at 3000"])
        #expect(Self.describe(Self.run([(1_000, true)], until: 10_000)) == ["longPress at 3000"])
    }

    @Test("released just before 2 s: short, even though the release settles after the 2 s mark")
    func releaseJustBeforeTheMark() {
        #expect(Self.describe(Self.run([(1_000, true), (2_990, false)], until: 10_000)) == ["shortPress at 3020"])
    }

    @Test("edges read late, all at once, are judged by their own times")
    func lateEdges() {
        var gestures = ButtonGestures()
        // A busy loop reads a 300 ms press and a 2.5 s hold only after both happened.
        var seen = gestures.edge(pressed: true, at: Self.at(1_000))
        seen += gestures.edge(pressed: false, at: Self.at(1_300))
        seen += gestures.edge(pressed: true, at: Self.at(2_000))
        seen += gestures.edge(pressed: false, at: Self.at(4_500))
        seen += gestures.advance(to: Self.at(9_000))
        #expect(seen == [.shortPress, .longPress])
        #expect(!gestures.isPressed)
        #expect(gestures.nextDeadline == nil)
    }
}
