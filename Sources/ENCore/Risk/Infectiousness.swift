/// How infectious a key's owner likely was on the key's day, judged from days since symptom onset (v2).
/// Raw values are Apple's `ENInfectiousness`.
public enum Infectiousness: Int, CaseIterable, Hashable, Sendable, CustomStringConvertible {
    /// Not infectious: windows of such keys are dropped, whatever the weights.
    case none = 0
    case standard = 1
    case high = 2

    /// The name used in JSON configurations.
    public var description: String {
        switch self {
        case .none: "none"
        case .standard: "standard"
        case .high: "high"
        }
    }

    public init?(name: String) {
        guard let match = Self.allCases.first(where: { $0.description == name }) else { return nil }
        self = match
    }
}
