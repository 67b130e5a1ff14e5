/// How a diagnosis key's owner was diagnosed, as carried in export files (`report_type`).
///
/// Raw values are the wire values of the export protocol buffer, so a decoder can map them directly.
public enum ReportType: Int, CaseIterable, Hashable, Sendable, CustomStringConvertible {
    case unknown = 0
    case confirmedTest = 1
    case confirmedClinicalDiagnosis = 2
    case selfReport = 3
    /// A key reported by someone notified through another report; SPEC §3 drops these at import.
    case recursive = 4
    /// Withdraws an earlier report of the same key; only ever found among revised keys.
    case revoked = 5

    /// The name used in JSON configurations and on the console.
    public var description: String {
        switch self {
        case .unknown: "unknown"
        case .confirmedTest: "confirmedTest"
        case .confirmedClinicalDiagnosis: "confirmedClinicalDiagnosis"
        case .selfReport: "selfReport"
        case .recursive: "recursive"
        case .revoked: "revoked"
        }
    }

    /// The report type named `name` (its `description`), or nil.
    public init?(name: String) {
        guard let match = Self.allCases.first(where: { $0.description == name }) else { return nil }
        self = match
    }

    /// Whether an exposure to this key counts at all: a revoked key withdraws a diagnosis, so neither v1 nor v2
    /// scores it. Recursive keys do count (v2 gives them their own weight); dropping them is the importer's call.
    public var isScored: Bool { self != .revoked }
}
