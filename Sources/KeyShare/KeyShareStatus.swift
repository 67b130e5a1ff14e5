import ENCore

/// The key share as `keys share status` and `status` show it. Holds no secret: whether a token, certificate,
/// HMAC secret or revision token is held shows as a flag, never as the value.
public struct KeyShareStatus: Equatable, Sendable {
    public enum Phase: String, Equatable, Sendable {
        /// `share.*` lacks a key (`missingKeys`).
        case notConfigured
        /// Nothing under way.
        case idle
        /// `keys share` is asking the verification server about a code.
        case verifying
        /// The code was accepted; publishing waits for the end of the day of consent.
        case waiting
        /// Asking for the certificate or publishing, now.
        case publishing
        /// An attempt failed; the next is due at `nextAttemptAt`.
        case retrying
    }

    public var phase: Phase = .notConfigured
    /// The state in words.
    public var state = ""
    /// `share.*` keys without a value.
    public var missingKeys: [String] = []
    public var testType: TestType?
    public var testDate: UTCDay?
    public var symptomOnset: UTCDay?
    /// Unix seconds.
    public var consentedAt: Int64?
    public var publishAfter: Int64?
    public var nextAttemptAt: Int64?
    /// Until when the share can still publish: the token's end, or the certificate's once there is one.
    public var usableUntil: Int64?
    public var attempts = 0
    public var lastError: String?
    public var holdsToken = false
    public var holdsCertificate = false
    public var holdsSecret = false
    /// What an earlier publish left for a later one.
    public var holdsRevisionToken = false
    public var publishedKeys: Int?
    public var publishedAt: Int64?
    public var lastOutcome: ShareOutcome?

    public init() {}
}
