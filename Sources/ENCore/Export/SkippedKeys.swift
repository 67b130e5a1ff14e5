/// How many key records were dropped, by reason, while streaming an export.
public struct SkippedKeys: Hashable, Sendable, CustomStringConvertible {
    private var counts = [Int](repeating: 0, count: KeyRejection.allCases.count)

    public init() {}

    public subscript(reason: KeyRejection) -> Int { counts[reason.rawValue] }

    public var total: Int { counts.reduce(0, +) }

    mutating func record(_ reason: KeyRejection) { counts[reason.rawValue] += 1 }

    /// "none", or e.g. "3 (2 key_data not 16 bytes, 1 report_type RECURSIVE)".
    public var description: String {
        let parts = KeyRejection.allCases.filter { self[$0] > 0 }.map { "\(self[$0]) \($0)" }
        return parts.isEmpty ? "none" : "\(total) (\(parts.joined(separator: ", ")))"
    }
}
