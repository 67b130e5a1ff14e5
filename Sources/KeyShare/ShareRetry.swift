import ENCore

/// What a failed certificate or publish request does to a share: another try later — after a backoff for what
/// may recover (the network, 5xx), an hour later for a refusal the badge's settings caused while the token is
/// still unused — or the end of the share, when only a new code can help.
enum ShareRetry: Equatable {
    /// Try again at `pending.nextAttemptAt`; `outcome` is for staff (`announce`: the first of this share's
    /// retries, told through the log at warn and `notify.command`; later ones go to the log only).
    case retry(ShareOutcome, announce: Bool)
    /// The share ends with these words.
    case giveUp(String)

    /// The failure recorded in `pending` (attempts, next attempt, last error), and what follows.
    static func after(_ error: HealthAuthorityError, at endpoint: PublishingEndpoint, pending: inout ShareRecord.Pending,
                      now: Int64, settings: KeyShareSettings, using random: inout some RandomNumberGenerator) -> ShareRetry {
        let message = error.description
        switch (error.disposition, endpoint) {
        case (.retryLater, _):
            pending.attempts += 1
            let policy = endpoint == .publish ? settings.publishRetry : settings.certificateRetry
            let jitter = Double.random(in: 0.5..<1.5, using: &random)
            pending.retryAt = now + policy.delay(afterAttempt: pending.attempts, jitter: jitter).components.seconds
        case (.checkConfiguration, .certificate), (.badgeFault, .certificate):
            // The token is not used up by a refusal: it stays, to be tried again once the settings are fixed.
            pending.attempts += 1
            pending.retryAt = now + settings.settingsRetryDelay.components.seconds
        case (.newCodeNeeded, _):
            return .giveUp(message)
        case (.checkConfiguration, .publish), (.badgeFault, .publish), (_, .verify):
            return .giveUp(message + "; the code's verification is used up: ask the health authority for a new code")
        }
        pending.lastError = message
        let retryAt = pending.nextAttemptAt
        // Told once per share, not at every retry: the log and notify.command would drown in a long outage.
        let announce = !pending.retryAnnounced
        pending.retryAnnounced = true
        let text = "\(message); next try at \(UTCDateTime(unixSeconds: retryAt)) (attempt \(pending.attempts + 1)), "
            + "possible until \(UTCDateTime(unixSeconds: pending.usableUntil))"
        return .retry(ShareOutcome(kind: .retrying, message: text, at: now, retryAt: retryAt), announce: announce)
    }
}
