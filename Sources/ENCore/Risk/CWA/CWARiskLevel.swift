/// The two risk levels of the Corona-Warn-App's model; raw values are its configuration's (`riskLevel: 1` or `2`).
public enum CWARiskLevel: Int, CaseIterable, Hashable, Comparable, Sendable, CustomStringConvertible {
    case low = 1
    case high = 2

    public var description: String { self == .low ? "low" : "high" }

    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
}
