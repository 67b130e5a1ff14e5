/// A calendar day in UTC, as a count of days since 1970-01-01: the resolution GAEN reports exposures at, so that
/// a result never says more about when two people met than the day.
public struct UTCDay: Hashable, Comparable, Sendable, CustomStringConvertible {
    public static let secondsPerDay: Int64 = 86_400

    public var daysSinceEpoch: Int64

    public init(daysSinceEpoch: Int64) { self.daysSinceEpoch = daysSinceEpoch }

    /// The day containing `unixSeconds` (floor division, so times before 1970 land on the right day too).
    public init(unixSeconds: Int64) {
        let floorDays = unixSeconds >= 0
            ? unixSeconds / Self.secondsPerDay
            : (unixSeconds - (Self.secondsPerDay - 1)) / Self.secondsPerDay
        daysSinceEpoch = floorDays
    }

    /// The day containing an interval (intervals never straddle midnight: 144 of them make a day).
    public init(_ interval: ENIntervalNumber) { self.init(unixSeconds: interval.unixSeconds) }

    /// Midnight UTC at the start of the day.
    public var unixSeconds: Int64 { daysSinceEpoch * Self.secondsPerDay }

    /// Whole days from `self` to `later` (negative when `later` is earlier).
    public func days(until later: UTCDay) -> Int64 { later.daysSinceEpoch - daysSinceEpoch }

    public static func < (a: Self, b: Self) -> Bool { a.daysSinceEpoch < b.daysSinceEpoch }

    /// `2020-04-02`
    public var description: String { UTCDateTime(unixSeconds: unixSeconds).date }
}
