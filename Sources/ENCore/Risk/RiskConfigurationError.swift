/// Why a risk configuration was refused, naming the field so the operator can find it in the file.
public struct RiskConfigurationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A path into the document such as `attenuationLevelValues[3]` or `attenuationWeights.near`; nil when the
    /// document as a whole is at fault (not JSON, not an object).
    public var field: String?
    public var reason: String

    public init(field: String?, reason: String) {
        self.field = field
        self.reason = reason
    }

    public var description: String {
        guard let field else { return reason }
        return "\(field): \(reason)"
    }
}
