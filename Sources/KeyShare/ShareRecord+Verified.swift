import ENCore

extension ShareRecord.Pending {
    /// The share a verified code starts at `now`: its token lives as long as it says (within 30 days), or
    /// `share`'s assumed lifetime; the keys go out after the UTC midnight that ends the day of consent plus a
    /// random delay — or sooner, half an hour before the token ends, when it ends first (then `note` says that
    /// only the days before today are shared). Staff's dates come first; the code's own otherwise.
    static func verified(_ code: VerifiedCode, testDate: UTCDay?, symptomOnset: UTCDay?, now: Int64,
                         settings: KeyShareSettings, using random: inout some RandomNumberGenerator)
        -> (pending: ShareRecord.Pending, note: String) {
        let tokenExpiresAt = lifetime(claimed: JWTExpiry.unixSeconds(of: code.token), now: now,
                                      assumed: settings.tokenLifetime, longest: 30 * 86_400)
        let delay = Int64.random(in: settings.publishDelay, using: &random)
        var publishAfter = UTCDay(unixSeconds: now).unixSeconds + UTCDay.secondsPerDay + delay
        var note = ""
        if publishAfter > tokenExpiresAt - 600 {
            // A token shorter than the rest of the day: the days before today still go out in time.
            publishAfter = max(now + 60, tokenExpiresAt - 1800)
            note = "; the verification expires at \(UTCDateTime(unixSeconds: tokenExpiresAt)), before today's key is "
                + "complete, so only the days before today are shared"
        }
        let pending = ShareRecord.Pending(consentedAt: now, testType: code.testType, testDate: testDate ?? code.testDate,
                                          symptomOnset: symptomOnset ?? code.symptomDate, token: code.token,
                                          tokenExpiresAt: tokenExpiresAt, publishAfter: publishAfter)
        return (pending, note)
    }

    /// The certificate that replaces the token (used up by it), for exactly `upload`'s keys under its secret; it
    /// lives as long as it says (within a day), or `share`'s assumed lifetime. Attempts count afresh.
    mutating func certified(_ certificate: String, for upload: KeyUpload, now: Int64, settings: KeyShareSettings) {
        token = nil
        self.certificate = certificate
        certificateExpiresAt = Self.lifetime(claimed: JWTExpiry.unixSeconds(of: certificate), now: now,
                                             assumed: settings.certificateLifetime, longest: 86_400)
        secret = upload.secret
        keyStarts = upload.keys.map { $0.rollingStartNumber.value }
        attempts = 0
        retryAt = nil
    }

    /// A lifetime as claimed, when it is plausible (after now, within `longest`); `assumed` from now otherwise.
    static func lifetime(claimed: Int64?, now: Int64, assumed: Int64, longest: Int64) -> Int64 {
        if let claimed, claimed > now, claimed - now <= longest { return claimed }
        return now + assumed
    }
}
