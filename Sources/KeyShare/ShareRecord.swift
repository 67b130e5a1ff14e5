import ENCore

/// What the key share keeps on disk (`DATA/share`, 0600, replaced atomically), so that a restart or a power cut
/// loses nothing staff did: the share under way with its token (and, between the certificate and the publish,
/// the certificate and the HMAC secret), what was published with the key server's revision token, and the
/// last outcome for `status`. Every secret is dropped as soon as it is used up or expires.
///
/// One `name value` line per field; a value runs to the end of its line (none holds a line break: tokens,
/// certificates and messages are checked or made on the badge).
struct ShareRecord: Equatable, Sendable {
    package static let fileName = "share"

    /// A share staff started with a valid code and that has not ended yet.
    package struct Pending: Equatable, Sendable {
        /// Unix seconds of consent (the code was verified then).
        package var consentedAt: Int64
        package var testType: TestType
        package var testDate: UTCDay?
        package var symptomOnset: UTCDay?
        /// From /api/verify; nil once /api/certificate used it up.
        package var token: String?
        var tokenExpiresAt: Int64
        /// The keys are published at or after this: the UTC midnight after consent plus a random delay.
        package var publishAfter: Int64
        /// The certificate for `keyStarts` under `secret`, once /api/certificate gave it.
        package var certificate: String?
        var certificateExpiresAt: Int64?
        /// The HMAC secret the certificate was asked with.
        package var secret: [UInt8]?
        /// The rolling starts of exactly the keys the certificate covers (the keys themselves stay in `DATA/keys`).
        var keyStarts: [UInt32] = []
        /// Failed attempts at the current step.
        package var attempts = 0
        /// Unix seconds of the next attempt after a failure; nil: at `publishAfter`.
        var retryAt: Int64?
        /// The last failure, in the words staff see.
        package var lastError: String?
        /// Whether staff have been told (log at warn, notify.command) that publishing is being retried.
        var retryAnnounced = false

        init(consentedAt: Int64, testType: TestType, testDate: UTCDay?, symptomOnset: UTCDay?, token: String,
                    tokenExpiresAt: Int64, publishAfter: Int64) {
            self.consentedAt = consentedAt
            self.testType = testType
            self.testDate = testDate
            self.symptomOnset = symptomOnset
            self.token = token
            self.tokenExpiresAt = tokenExpiresAt
            self.publishAfter = publishAfter
        }

        /// When the next attempt is due.
        package var nextAttemptAt: Int64 { max(publishAfter, retryAt ?? publishAfter) }

        /// When what the share holds stops being usable: the certificate's end once there is one, else the token's.
        package var usableUntil: Int64 { certificateExpiresAt ?? tokenExpiresAt }
    }

    /// What the key server stored, for a later share: keys it holds are sent again only with its revision token.
    struct Publication: Equatable, Sendable {
        package var revisionToken: String?
        /// Rolling starts of every key published so far.
        var keyStarts: [UInt32]
        package var publishedAt: Int64

        init(revisionToken: String?, keyStarts: [UInt32], publishedAt: Int64) {
            self.revisionToken = revisionToken
            self.keyStarts = keyStarts
            self.publishedAt = publishedAt
        }

        /// A key published longer ago than this is past every key server's 14-day window: nothing to revise.
        static let keptSeconds: Int64 = 15 * 86_400
    }

    package var pending: Pending?
    var publication: Publication?
    package var outcome: ShareOutcome?

    init(pending: Pending? = nil, publication: Publication? = nil, outcome: ShareOutcome? = nil) {
        self.pending = pending
        self.publication = publication
        self.outcome = outcome
    }

    package var isEmpty: Bool { pending == nil && publication == nil && outcome == nil }

    /// Drops what has lapsed by `now`: a publication past its keys' window, an outcome older than `ShareOutcome.keptSeconds`.
    /// (A pending share past its token's life is not dropped here: it is reported first, by the service.)
    mutating func removeLapsed(at now: Int64) {
        if let publication, now - publication.publishedAt >= Publication.keptSeconds { self.publication = nil }
        if let outcome, now - outcome.at >= ShareOutcome.keptSeconds { self.outcome = nil }
    }

    /// The next time something lapses, for the service's timer.
    var nextLapse: Int64? {
        [publication.map { $0.publishedAt + Publication.keptSeconds }, outcome.map { $0.at + ShareOutcome.keptSeconds }]
            .compactMap { $0 }.min()
    }

    // MARK: Text

    package var text: String {
        var lines = ["format 1"]
        if let p = pending {
            lines.append("consented_at \(p.consentedAt)")
            lines.append("test_type \(p.testType.rawValue)")
            if let day = p.testDate { lines.append("test_date \(day)") }
            if let day = p.symptomOnset { lines.append("symptom_onset \(day)") }
            if let token = p.token { lines.append("token \(token)") }
            lines.append("token_expires_at \(p.tokenExpiresAt)")
            lines.append("publish_after \(p.publishAfter)")
            if let certificate = p.certificate { lines.append("certificate \(certificate)") }
            if let at = p.certificateExpiresAt { lines.append("certificate_expires_at \(at)") }
            if let secret = p.secret { lines.append("secret \(Hex.encode(secret))") }
            if !p.keyStarts.isEmpty { lines.append("key_starts " + p.keyStarts.map(String.init).joined(separator: " ")) }
            lines.append("attempts \(p.attempts)")
            if let at = p.retryAt { lines.append("retry_at \(at)") }
            if let error = p.lastError { lines.append("last_error \(Self.oneLine(error))") }
            if p.retryAnnounced { lines.append("retry_announced 1") }
        }
        if let p = publication {
            if let token = p.revisionToken { lines.append("revision_token \(token)") }
            lines.append("published_key_starts " + p.keyStarts.map(String.init).joined(separator: " "))
            lines.append("published_at \(p.publishedAt)")
        }
        if let o = outcome {
            lines.append("outcome \(o.kind.rawValue) \(o.at)")
            lines.append("outcome_message \(Self.oneLine(o.message))")
            if let keys = o.keys { lines.append("outcome_keys \(keys)") }
            if let inserted = o.insertedExposures { lines.append("outcome_inserted \(inserted)") }
            for warning in o.warnings { lines.append("outcome_warning \(Self.oneLine(warning))") }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Reads `text`; a pending share missing what it cannot do without (its type, times, or both token and
    /// certificate) is dropped, the rest kept: a damaged line must not cost the publication's revision token.
    init(text: String) {
        var fields: [String: String] = [:]
        var warnings: [String] = []
        for line in text.split(separator: "\n") {
            guard let space = line.firstIndex(of: " ") else { continue }
            let name = String(line[..<space])
            let value = String(line[line.index(after: space)...])
            if name == "outcome_warning" { warnings.append(value) } else { fields[name] = value }
        }
        func number(_ name: String) -> Int64? { fields[name].flatMap { Int64($0) } }
        func starts(_ name: String) -> [UInt32]? {
            guard let text = fields[name] else { return nil }
            let values = text.split(separator: " ").map { UInt32($0) }
            return values.contains(nil) ? nil : values.compactMap { $0 }
        }
        self.init()
        if let consentedAt = number("consented_at"), let type = fields["test_type"].flatMap(TestType.init(rawValue:)),
           let tokenExpiresAt = number("token_expires_at"), let publishAfter = number("publish_after"),
           fields["token"] != nil || fields["certificate"] != nil {
            var p = Pending(consentedAt: consentedAt, testType: type, testDate: fields["test_date"].flatMap(UTCDay.init(isoDate:)),
                            symptomOnset: fields["symptom_onset"].flatMap(UTCDay.init(isoDate:)), token: "",
                            tokenExpiresAt: tokenExpiresAt, publishAfter: publishAfter)
            p.token = fields["token"]
            p.certificate = fields["certificate"]
            p.certificateExpiresAt = number("certificate_expires_at")
            p.secret = fields["secret"].flatMap(Hex.decode)
            p.keyStarts = starts("key_starts") ?? []
            p.attempts = Int(number("attempts") ?? 0)
            p.retryAt = number("retry_at")
            p.lastError = fields["last_error"]
            p.retryAnnounced = fields["retry_announced"] == "1"
            // A certificate is only usable with the secret and keys it was issued for.
            if p.certificate != nil && (p.secret == nil || p.keyStarts.isEmpty || p.certificateExpiresAt == nil) {
                p.certificate = nil
                p.certificateExpiresAt = nil
            }
            if p.token != nil || p.certificate != nil { pending = p }
        }
        if let starts = starts("published_key_starts"), let at = number("published_at") {
            publication = Publication(revisionToken: fields["revision_token"], keyStarts: starts, publishedAt: at)
        }
        if let head = fields["outcome"], let space = head.firstIndex(of: " "),
           let kind = ShareOutcome.Kind(rawValue: String(head[..<space])), let at = Int64(head[head.index(after: space)...]) {
            outcome = ShareOutcome(kind: kind, message: fields["outcome_message"] ?? "", at: at,
                                   keys: number("outcome_keys").map(Int.init),
                                   insertedExposures: number("outcome_inserted").map(Int.init), warnings: warnings)
        }
    }

    /// Messages come from the badge or are sanitised server words; a line break would split the field.
    static func oneLine(_ text: String) -> String {
        String(text.map { $0 == "\n" || $0 == "\r" ? " " : $0 })
    }
}
