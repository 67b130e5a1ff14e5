/// The kinds of test result a verification code stands for, with their names on the wire (`testtype` in
/// /api/verify's answer, entries of its `accept`, and `reportType` in a certificate).
public enum TestType: String, Sendable {
    /// A positive test.
    case confirmed
    /// A clinical diagnosis without a test.
    case likely
    /// A negative test: revokes keys shared as `likely` before.
    case negative
    /// The wearer's own report.
    case userReport = "user-report"
}
