/// A GAEN interval number: ten-minute intervals since the Unix epoch (`floor(unix_seconds / 600)`).
public struct ENIntervalNumber: Hashable, Comparable, Sendable, CustomStringConvertible {
    public static let secondsPerInterval: Int64 = 600
    /// Intervals in one TEK rolling period (24 h).
    public static let intervalsPerDay: UInt32 = 144

    public var value: UInt32

    public init(_ value: UInt32) { self.value = value }

    /// The interval containing `unixSeconds`; nil before 1970 or past the year 83,000 (UInt32 overflow).
    public init?(unixSeconds: Int64) {
        guard unixSeconds >= 0 else { return nil }
        let n = unixSeconds / Self.secondsPerInterval
        guard n <= Int64(UInt32.max) else { return nil }
        value = UInt32(n)
    }

    /// The first second of this interval.
    public var unixSeconds: Int64 { Int64(value) * Self.secondsPerInterval }

    /// The start of the UTC day containing this interval: where a TEK's validity begins.
    public var dayStart: ENIntervalNumber {
        ENIntervalNumber(value - value % Self.intervalsPerDay)
    }

    /// `self + delta`, or nil when the result leaves UInt32.
    public func advanced(by delta: Int64) -> ENIntervalNumber? {
        let n = Int64(value) + delta
        guard n >= 0, n <= Int64(UInt32.max) else { return nil }
        return ENIntervalNumber(UInt32(n))
    }

    /// Signed distance in intervals from `self` to `other`.
    public func distance(to other: ENIntervalNumber) -> Int64 { Int64(other.value) - Int64(value) }

    public static func < (a: Self, b: Self) -> Bool { a.value < b.value }
    public var description: String { String(value) }
}
