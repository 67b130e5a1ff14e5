/// A duration counted in 0.625 ms baseband slots: the unit of advertising and scan intervals.
///
/// Kept as the raw count so that what the host sends is exactly what the controller receives; the
/// millisecond views are for people and configuration only.
public struct BasebandSlots: RawRepresentable, Hashable, Sendable, Comparable, CustomStringConvertible {
    public static let microsecondsPerSlot = 625

    public let rawValue: UInt16

    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// The nearest whole number of slots to `milliseconds`, clamped to what the 16-bit field holds.
    public init(milliseconds: Int) {
        let slots = (max(0, milliseconds) * 1000 + Self.microsecondsPerSlot / 2) / Self.microsecondsPerSlot
        rawValue = UInt16(min(slots, Int(UInt16.max)))
    }

    public var microseconds: Int { Int(rawValue) * Self.microsecondsPerSlot }

    public static func < (a: BasebandSlots, b: BasebandSlots) -> Bool { a.rawValue < b.rawValue }

    /// `100.0 ms`, `62.5 ms`.
    public var description: String {
        let tenths = (microseconds + 50) / 100
        return "\(tenths / 10).\(tenths % 10) ms"
    }
}
