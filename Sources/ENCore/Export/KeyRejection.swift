/// Why a key record was skipped. These are per-key problems, not file corruption: the rest of
/// the file is still good, so the key is counted and dropped rather than failing the export.
/// `days_since_onset_of_symptoms` is never a reason: like Google's matcher, a value outside −14…14 (the EU
/// gateway's 2000 ± 14, 3000 ± 14 and so on encode ranges and states) keeps the key, and risk scoring gives
/// it the configured default infectiousness.
public enum KeyRejection: Int, Error, CaseIterable, Hashable, Sendable, CustomStringConvertible {
    /// `key_data` absent or not exactly 16 bytes.
    case keyDataNot16Bytes
    /// `rolling_start_interval_number` absent or negative: there is no interval to derive RPIs for.
    case missingRollingStart
    /// `rolling_period` outside 1…144.
    case rollingPeriodOutOfRange
    /// `report_type` RECURSIVE, which the reference implementation drops.
    case recursiveReport
    /// `report_type` REVOKED in `keys`: revocation belongs in `revised_keys` only.
    case revokedOutsideRevisedKeys

    public var description: String {
        switch self {
        case .keyDataNot16Bytes: "key_data not 16 bytes"
        case .missingRollingStart: "rolling_start_interval_number missing or negative"
        case .rollingPeriodOutOfRange: "rolling_period outside 1...144"
        case .recursiveReport: "report_type RECURSIVE"
        case .revokedOutsideRevisedKeys: "report_type REVOKED outside revised_keys"
        }
    }
}
