import ENCore

extension KeyShareStatus {
    /// The share as `keys share status` and `status` show it, from what `ShareMachine` holds: flags, never a
    /// secret's value. `publishing`: the certificate or publish request under way.
    init(record: ShareRecord, settings: KeyShareSettings, isVerifying: Bool, publishing: PublishingEndpoint?,
         clockTrusted: Bool) {
        self.init()
        missingKeys = settings.missingKeys
        lastOutcome = record.outcome
        holdsRevisionToken = record.publication?.revisionToken != nil
        publishedKeys = record.publication?.keyStarts.count
        publishedAt = record.publication?.publishedAt
        guard let p = record.pending else {
            if isVerifying {
                phase = .verifying
                state = "checking a code with the health authority"
            } else if !settings.isConfigured {
                phase = .notConfigured
                state = "not configured: " + KeyShareError.list(missingKeys) + (missingKeys.count == 1 ? " has" : " have")
                    + " no value"
            } else {
                phase = .idle
                state = "nothing under way"
            }
            return
        }
        testType = p.testType
        testDate = p.testDate
        symptomOnset = p.symptomOnset
        consentedAt = p.consentedAt
        publishAfter = p.publishAfter
        nextAttemptAt = publishing == nil ? p.nextAttemptAt : nil
        usableUntil = p.usableUntil
        attempts = p.attempts
        lastError = p.lastError
        holdsToken = p.token != nil
        holdsCertificate = p.certificate != nil
        holdsSecret = p.secret != nil
        let until = UTCDateTime(unixSeconds: p.usableUntil)
        if let publishing {
            phase = .publishing
            state = publishing == .publish ? "sending \(p.keyStarts.count) keys to the key server"
                : "asking the health authority for a certificate"
        } else if p.attempts > 0 {
            phase = .retrying
            state = "attempt \(p.attempts) failed (\(p.lastError ?? "")); next try at "
                + "\(UTCDateTime(unixSeconds: p.nextAttemptAt)), possible until \(until)"
        } else {
            phase = .waiting
            state = "code accepted at \(UTCDateTime(unixSeconds: p.consentedAt)); the keys of complete days are "
                + "published after \(UTCDateTime(unixSeconds: p.publishAfter))"
            if !clockTrusted { state += " (waiting for a trusted clock)" }
            if !settings.isConfigured { state += " (waiting for " + KeyShareError.list(missingKeys) + ")" }
        }
    }
}
