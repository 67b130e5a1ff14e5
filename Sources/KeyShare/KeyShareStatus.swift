import ENCore

/// The key share as `keys share status` and `status` show it. Holds no secret: whether a token, certificate,
/// HMAC secret or revision token is held shows as a flag, never as the value.
package struct KeyShareStatus: Equatable, Sendable {
    package enum Phase: String, Equatable, Sendable {
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

    package var phase: Phase = .notConfigured
    /// The state in words.
    package var state = ""
    /// `share.*` keys without a value.
    package var missingKeys: [String] = []
    package var testType: TestType?
    package var testDate: UTCDay?
    package var symptomOnset: UTCDay?
    /// Unix seconds.
    package var consentedAt: Int64?
    package var publishAfter: Int64?
    package var nextAttemptAt: Int64?
    /// Until when the share can still publish: the token's end, or the certificate's once there is one.
    package var usableUntil: Int64?
    package var attempts = 0
    package var lastError: String?
    package var holdsToken = false
    package var holdsCertificate = false
    package var holdsSecret = false
    /// What an earlier publish left for a later one.
    package var holdsRevisionToken = false
    package var publishedKeys: Int?
    package var publishedAt: Int64?
    package var lastOutcome: ShareOutcome?

    package init() {}
}
