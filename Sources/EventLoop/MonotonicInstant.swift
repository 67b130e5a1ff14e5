/// A point on the loop's monotonic time line: nanoseconds since an arbitrary origin.
///
/// On `PollLoop` the origin is the kernel's CLOCK_MONOTONIC origin (roughly boot); on
/// `VirtualLoop` it is zero at construction. The value means nothing across processes or
/// reboots, never goes backwards and is unaffected by wall-clock changes, which is why every
/// timeout and schedule is expressed in it.
///
/// Arithmetic saturates instead of trapping: a deadline "infinitely far" away is simply the
/// last representable instant.
public struct MonotonicInstant: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var nanoseconds: Int64

    public init(nanoseconds: Int64) { self.nanoseconds = nanoseconds }

    public static let zero = MonotonicInstant(nanoseconds: 0)

    public static func < (a: Self, b: Self) -> Bool { a.nanoseconds < b.nanoseconds }

    public static func + (instant: Self, delta: Duration) -> Self {
        Self(nanoseconds: saturatingSum(instant.nanoseconds, delta.nanosecondsValue))
    }

    public static func - (instant: Self, delta: Duration) -> Self {
        let nanoseconds = delta.nanosecondsValue
        // Negating Int64.min would overflow; nudging by one nanosecond is immaterial there.
        return Self(nanoseconds: saturatingSum(instant.nanoseconds, nanoseconds == .min ? .max : -nanoseconds))
    }

    /// The signed time from `earlier` to `later`.
    public static func - (later: Self, earlier: Self) -> Duration {
        let (difference, overflow) = later.nanoseconds.subtractingReportingOverflow(earlier.nanoseconds)
        if overflow { return .nanoseconds(later.nanoseconds < earlier.nanoseconds ? Int64.min : Int64.max) }
        return .nanoseconds(difference)
    }

    public static func += (instant: inout Self, delta: Duration) { instant = instant + delta }
    public static func -= (instant: inout Self, delta: Duration) { instant = instant - delta }

    public var description: String {
        let magnitude = nanoseconds.magnitude
        let fraction = String(magnitude % 1_000_000_000)
        let padded = String(repeating: "0", count: 9 - fraction.count) + fraction
        return "\(nanoseconds < 0 ? "-" : "")\(magnitude / 1_000_000_000).\(padded)s"
    }

    private static func saturatingSum(_ a: Int64, _ b: Int64) -> Int64 {
        let (sum, overflow) = a.addingReportingOverflow(b)
        if overflow { return b > 0 ? .max : .min }
        return sum
    }
}

// Lets generic code that speaks the standard library's instant vocabulary use loop time too.
extension MonotonicInstant: InstantProtocol {
    public func advanced(by duration: Duration) -> Self { self + duration }
    public func duration(to other: Self) -> Duration { other - self }
}
