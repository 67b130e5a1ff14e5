import ENCore

extension ShareMachine {
    /// The share as `keys share status` and `status` show it: flags, never a secret's value.
    func status(clockTrusted: Bool) -> KeyShareStatus {
        var s = KeyShareStatus()
        s.missingKeys = settings.missingKeys
        s.lastOutcome = record.outcome
        s.holdsRevisionToken = record.publication?.revisionToken != nil
        s.publishedKeys = record.publication?.keyStarts.count
        s.publishedAt = record.publication?.publishedAt
        guard let p = record.pending else {
            if isVerifying {
                s.phase = .verifying
                s.state = "checking a code with the health authority"
            } else if !settings.isConfigured {
                s.phase = .notConfigured
                s.state = "not configured: " + KeyShareError.list(s.missingKeys) + (s.missingKeys.count == 1 ? " has" : " have")
                    + " no value"
            } else {
                s.phase = .idle
                s.state = "nothing under way"
            }
            return s
        }
        s.testType = p.testType
        s.testDate = p.testDate
        s.symptomOnset = p.symptomOnset
        s.consentedAt = p.consentedAt
        s.publishAfter = p.publishAfter
        s.nextAttemptAt = publishing == nil ? p.nextAttemptAt : nil
        s.usableUntil = p.usableUntil
        s.attempts = p.attempts
        s.lastError = p.lastError
        s.holdsToken = p.token != nil
        s.holdsCertificate = p.certificate != nil
        s.holdsSecret = p.secret != nil
        let until = UTCDateTime(unixSeconds: p.usableUntil)
        if let publishing {
            s.phase = .publishing
            s.state = publishing == .publish ? "sending \(p.keyStarts.count) keys to the key server"
                : "asking the health authority for a certificate"
        } else if p.attempts > 0 {
            s.phase = .retrying
            s.state = "attempt \(p.attempts) failed (\(p.lastError ?? "")); next try at "
                + "\(UTCDateTime(unixSeconds: p.nextAttemptAt)), possible until \(until)"
        } else {
            s.phase = .waiting
            s.state = "code accepted at \(UTCDateTime(unixSeconds: p.consentedAt)); the keys of complete days are "
                + "published after \(UTCDateTime(unixSeconds: p.publishAfter))"
            if !clockTrusted { s.state += " (waiting for a trusted clock)" }
            if !settings.isConfigured { s.state += " (waiting for " + KeyShareError.list(s.missingKeys) + ")" }
        }
        return s
    }
}
