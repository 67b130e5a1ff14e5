import ENCore

/// What happened to a key share, in the words staff see: the last line of `keys share status`, a log line, and
/// the event `notify.command` reads on stdin. Never holds a code, token, certificate, secret or key.
package struct ShareOutcome: Equatable, Sendable {
    package enum Kind: String, Sendable, CaseIterable {
        /// The code was accepted; the keys go out once the day of consent has ended.
        case verified
        /// The verification server did not accept the code; nothing was kept.
        case refused
        /// Publishing failed for now and is being tried again.
        case retrying
        /// The key server stored every key.
        case published
        /// The key server stored some keys and dropped others (`partial_failure`).
        case partiallyPublished
        /// The share ended without keys published, for a reason that needs staff (a new code, the settings).
        case failed
        /// The token or certificate lapsed before the keys were published: a new code is needed.
        case expired
        /// Staff cancelled it, or `wipe` removed it.
        case cancelled
    }

    /// Whether the share has ended with keys at the key server (true) or without them (false); nil while it
    /// is under way or when staff ended it, which needs no signal on the badge.
    package var keysReachedServer: Bool? {
        switch kind {
        case .published, .partiallyPublished: true
        case .failed, .expired, .refused: false
        case .verified, .retrying, .cancelled: nil
        }
    }

    /// How long an outcome stays in `status` after it happened.
    static let keptSeconds: Int64 = 14 * 86_400

    package var kind: Kind
    package var message: String
    /// Unix seconds.
    package var at: Int64
    /// Keys sent in the publish, when there was one.
    package var keys: Int?
    /// Keys the key server says it stored.
    var insertedExposures: Int?
    /// The key server's words about keys it dropped.
    var warnings: [String] = []
    /// When the next attempt is due (retrying).
    var retryAt: Int64?

    init(kind: Kind, message: String, at: Int64, keys: Int? = nil, insertedExposures: Int? = nil,
                warnings: [String] = [], retryAt: Int64? = nil) {
        self.kind = kind
        self.message = message
        self.at = at
        self.keys = keys
        self.insertedExposures = insertedExposures
        self.warnings = warnings
        self.retryAt = retryAt
    }

    /// The event `notify.command` reads: `{"event":"keyShare","outcome":"published","message":"…","at":…,…}`.
    /// An exposure's document has no `event` member, so a command tells the two apart by it.
    package var eventJSON: String {
        var o = JSONObject()
        o.string("event", "keyShare")
        o.string("outcome", kind.rawValue)
        o.string("message", message)
        o.integer("at", at)
        o.string("time", "\(UTCDateTime(unixSeconds: at))")
        if let keys { o.integer("keys", keys) }
        if let insertedExposures { o.integer("insertedExposures", insertedExposures) }
        if !warnings.isEmpty { o.raw("warnings", JSON.array(warnings.map(JSONText.quoted))) }
        if let retryAt { o.integer("retryAt", retryAt) }
        return o.text
    }
}
