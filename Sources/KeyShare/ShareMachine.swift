import ENCore
import EventLoop
import Network

/// The rules of sharing a positive wearer's keys (PUBLISH.md), with no I/O: a value that takes events (staff
/// typed a code, a request was answered, a timer fired, the clock or the settings changed) and answers with the
/// actions to perform, in order (`ShareAction`). `KeyShare` performs them on the loop — the transport, `DATA/share`,
/// the log, `notify.command` — and feeds back what came of them.
///
/// The flow: the code is checked at once (`/api/verify`); the share is kept, with its token, and once the UTC day
/// of consent has ended (the day's key is off the air) the keys of complete days get a certificate
/// (`/api/certificate`, with the HMAC over exactly those keys under a fresh secret), and are published
/// (`/v1/publish`) with it. Everything the share must not lose is in the record, and the record is written
/// (`saveRecord`) before the request it enables goes out, so a restart resumes where it was. Network errors and
/// 5xx are retried with backoff for as long as the token (or, once used, the certificate) lives; a share that runs
/// out of time is reported, never dropped silently.
///
/// Modelled, like `SyncMachine` in KeyDownload, on swift-nio's `ProtocolNegotiationHandlerStateMachine`. Generic over
/// its random numbers (secrets, padding, timing), which it owns: a test gives it a seeded generator. Actions that
/// need the badge's keys ask for them (`readKeys`) and the driver answers at once, so what follows is decided with
/// them known. An answer the machine no longer waits for (a late one after `cancel`) is ignored.
struct ShareMachine<Random: RandomNumberGenerator> {
    /// The wall clock as the driver reads it when an event happens.
    struct Moment {
        var unixSeconds: Int64
        /// Whether the keys of a day can be told from the date (no share starts or publishes before).
        var isTrusted: Bool
    }

    /// The one real request that may be under way.
    private enum Request {
        /// `keys share CODE`: the dates staff typed wait for the code's answer.
        case verify(testDate: UTCDay?, symptomOnset: UTCDay?)
        /// The upload the certificate is asked for: its secret and keys are kept once the certificate comes.
        case certificate(KeyUpload)
        case publish
    }

    private(set) var settings: KeyShareSettings
    private(set) var record: ShareRecord
    private var random: Random
    private var running = false
    private var request: Request?
    /// `readKeys` is out: its answer starts the certificate or the publish due.
    private var wantsKeys = false
    private var wakeSet = false
    /// A `wipe` took a share under way: `recordDeleted` says so in the record.
    private var wipedShare = false
    private var chaff = ShareChaff()

    init(record: ShareRecord, settings: KeyShareSettings, random: Random) {
        self.record = record
        self.settings = settings
        self.random = random
    }

    /// Chaff exchanges started since the service was made.
    var chaffSent: Int { chaff.sent }

    /// Whether `keys share CODE` is waiting for the verification server.
    var isVerifying: Bool { if case .verify = request { true } else { false } }

    /// The certificate or publish request under way.
    var publishing: PublishingEndpoint? {
        switch request {
        case .certificate: .certificate
        case .publish: .publish
        case .verify, nil: nil
        }
    }

    /// The share as `keys share status` and `status` show it.
    func status(clockTrusted: Bool) -> KeyShareStatus {
        KeyShareStatus(record: record, settings: settings, isVerifying: isVerifying, publishing: publishing,
                       clockTrusted: clockTrusted)
    }

    // MARK: Service

    /// Resumes what the record holds: a share due is published (once the clock is trusted), one whose time ran
    /// out while the badge was off is reported.
    mutating func start(at now: Moment) -> [ShareAction] {
        guard !running else { return [] }
        running = true
        var actions: [ShareAction] = []
        if let pending = record.pending {
            actions.append(.log(.info, "key share: resuming the share of \(UTCDateTime(unixSeconds: pending.consentedAt)) "
                                + "(publishing after \(UTCDateTime(unixSeconds: pending.publishAfter)))"))
        }
        actions += advance(at: now)
        return actions + chaff.plan(settings, running: running, using: &random)
    }

    /// Drops the requests under way (a share resumes at the next start) and the timers.
    mutating func stop() -> [ShareAction] {
        running = false
        var actions: [ShareAction] = []
        if let request {
            actions.append(.cancelRequest)
            if case .verify = request { actions.append(.answer(.failure(.interrupted))) }
        }
        request = nil
        actions += chaff.stop()
        return actions + cancelWake()
    }

    /// New `share.*` settings: a share waiting because of them is tried again at once.
    mutating func reconfigure(_ settings: KeyShareSettings, at now: Moment) -> [ShareAction] {
        let changed = settings != self.settings
        self.settings = settings
        guard changed else { return [] }
        if var pending = record.pending, publishing == nil, pending.attempts > 0, pending.certificate == nil {
            pending.retryAt = nil
            record.pending = pending
        }
        let actions = advance(at: now)
        return actions + chaff.plan(settings, running: running, using: &random)
    }

    /// The clock became trusted, or jumped: what is due is judged by the new time.
    mutating func clockChanged(at now: Moment) -> [ShareAction] { advance(at: now) }

    mutating func wakeTimerFired(at now: Moment) -> [ShareAction] {
        guard wakeSet else { return [] }
        wakeSet = false
        return advance(at: now)
    }

    mutating func chaffTimerFired() -> [ShareAction] {
        chaff.timerFired(settings, running: running, realRequestUnderWay: request != nil, using: &random)
    }

    mutating func chaffAnswered() -> [ShareAction] { chaff.answered(publishing: publishing != nil) }

    // MARK: Staff

    /// `keys share CODE`: checks the code with the verification server now (the answer comes as `answer`).
    /// Throws, before anything leaves the badge, when the share cannot start at all.
    mutating func share(code typed: String, testDate: UTCDay?, symptomOnset: UTCDay?,
                        at now: Moment) throws(KeyShareError) -> [ShareAction] {
        guard settings.isConfigured else {
            throw .notConfigured(missing: settings.missingKeys)
        }
        guard now.isTrusted else { throw .clockNotTrusted }
        if let pending = record.pending { throw .alreadyUnderWay(publishAfter: pending.publishAfter) }
        guard !isVerifying else { throw .busy }
        let today = UTCDay(unixSeconds: now.unixSeconds)
        guard let question = try ShareRequests(settings: settings).verify(code: typed, testDate: testDate,
                                                                          symptomOnset: symptomOnset, today: today,
                                                                          using: &random) else {
            throw .notConfigured(missing: settings.missingKeys)
        }
        request = .verify(testDate: testDate, symptomOnset: symptomOnset)
        return [.log(.info, "key share: checking a verification code with the health authority"),
                .send(.verify, question)]
    }

    /// `keys share cancel`: ends the share under way; its token is thrown away (a new share needs a new code).
    mutating func cancel(at now: Moment) throws(KeyShareError) -> [ShareAction] {
        var actions: [ShareAction] = []
        if isVerifying {
            request = nil
            actions = [.cancelRequest,
                       .answer(.failure(.refused("cancelled before the health authority answered: nothing was kept")))]
        } else if record.pending == nil {
            throw .nothingToCancel
        }
        if publishing != nil {
            request = nil
            actions.append(.cancelRequest)
        }
        guard record.pending != nil else { return actions }
        return actions + finish(.cancelled, "cancelled by staff: no keys were shared, and the code's verification was "
                                + "discarded", now: now)
    }

    /// `wipe`, first step: the share under way and what an earlier publish left go with the keys they are about.
    /// The driver then deletes the record's file and answers `recordDeleted`.
    mutating func wipe() -> [ShareAction] {
        var actions: [ShareAction] = []
        if isVerifying {
            actions = [.cancelRequest, .answer(.failure(.refused("the badge was wiped before the health authority "
                                                                  + "answered: nothing was kept")))]
        } else if request != nil {
            actions = [.cancelRequest]
        }
        request = nil
        wipedShare = record.pending != nil
        record = ShareRecord()
        return actions
    }

    /// The record's file is gone: a share that was under way says, in the new record, that `wipe` ended it.
    mutating func recordDeleted(at now: Moment) -> [ShareAction] {
        var actions: [ShareAction] = []
        if wipedShare {
            wipedShare = false
            record.outcome = ShareOutcome(kind: .cancelled, message: "deleted by wipe: no keys were shared",
                                          at: now.unixSeconds)
            actions.append(.saveRecord(record))
        }
        return actions + advance(at: now)
    }

    // MARK: Answers

    /// A real request came back (or could not be made: the transport's failure reads as the server's refusals do).
    mutating func answered(_ endpoint: PublishingEndpoint,
                           _ result: Result<HealthAuthorityResponse, HealthAuthorityTransportFailure>,
                           at now: Moment) -> [ShareAction] {
        let answer = result.mapError { failure -> HealthAuthorityError in
            switch failure {
            case .unreachable(let reason): .unreachable(reason, endpoint: endpoint)
            case .unusable(let reason): .malformedAnswer(reason, endpoint: endpoint)
            }
        }
        switch (endpoint, request) {
        case (.verify, .verify(let testDate, let symptomOnset)?):
            request = nil
            return verified(answer, testDate: testDate, symptomOnset: symptomOnset, at: now)
        case (.certificate, .certificate(let upload)?):
            guard record.pending != nil else { return [] }
            request = nil
            return certified(answer, upload, at: now)
        case (.publish, .publish?):
            guard let pending = record.pending else { return [] }
            request = nil
            do throws(HealthAuthorityError) {
                let response = try answer.get()
                return published(try PublishOutcome(status: response.status, body: response.body),
                                 keys: pending.keyStarts, at: now)
            } catch {
                return failed(error, at: .publish, now: now)
            }
        default:
            return []
        }
    }

    /// The answer to `readKeys`: the certificate or the publish that was due goes out (or the share ends).
    mutating func keysRead(_ keys: [TemporaryExposureKey], at now: Moment) -> [ShareAction] {
        guard wantsKeys, let pending = record.pending else { return [] }
        wantsKeys = false
        if pending.certificate != nil { return publish(pending, keys, at: now) }
        return requestCertificate(pending, keys, at: now)
    }

    private mutating func verified(_ answer: Result<HealthAuthorityResponse, HealthAuthorityError>, testDate: UTCDay?,
                                   symptomOnset: UTCDay?, at now: Moment) -> [ShareAction] {
        do throws(HealthAuthorityError) {
            let response = try answer.get()
            let code = try VerifiedCode(status: response.status, body: response.body)
            let actions = accepted(code, testDate: testDate, symptomOnset: symptomOnset, at: now)
            return actions + [.answer(.success(status(clockTrusted: now.isTrusted)))]
        } catch {
            // Nothing is kept: staff enter the code again, if it is worth it.
            let refusal = ShareOutcome.codeRefused(error, at: now.unixSeconds)
            return report(refusal, level: .warn) + [.answer(.failure(.refused(refusal.message)))]
        }
    }

    /// The code was accepted: the share is kept, to be published once the day of consent has ended.
    private mutating func accepted(_ verified: VerifiedCode, testDate: UTCDay?, symptomOnset: UTCDay?,
                                   at now: Moment) -> [ShareAction] {
        let (pending, note) = ShareRecord.Pending.verified(verified, testDate: testDate, symptomOnset: symptomOnset,
                                                           now: now.unixSeconds, settings: settings, using: &random)
        record.pending = pending
        return report(.accepted(pending, note: note), level: .info) + advance(at: now)
    }

    // MARK: Publishing

    /// Does what is due now, and sets the timer for what is due next.
    private mutating func advance(at now: Moment) -> [ShareAction] {
        var actions = cancelWake()
        guard running else { return actions }
        var tidied = record
        tidied.removeLapsed(at: now.unixSeconds)
        if tidied != record {
            record = tidied
            actions.append(.saveRecord(record))
        }
        var wakeAt = record.nextLapse
        if let pending = record.pending, publishing == nil {
            // A share past its time ends, reported; that comes back here.
            if now.unixSeconds >= pending.usableUntil { return actions + finish(.expired(pending), now: now) }
            let due = now.unixSeconds >= pending.nextAttemptAt
            if due && now.isTrusted && settings.isConfigured {
                // A request goes out once the keys are read (its answer comes back here), or the share ends.
                wantsKeys = true
                return actions + [.readKeys]
            }
            // Not due, or due and waiting for the clock or the settings (they come back here when they change).
            wakeAt = [wakeAt, pending.usableUntil, due ? nil : pending.nextAttemptAt].compactMap { $0 }.min()
        }
        guard publishing == nil, let wakeAt else { return actions }
        wakeSet = true
        return actions + [.scheduleWake(after: .seconds(max(0, wakeAt - now.unixSeconds)))]
    }

    private mutating func cancelWake() -> [ShareAction] {
        guard wakeSet else { return [] }
        wakeSet = false
        return [.cancelWake]
    }

    private mutating func requestCertificate(_ pending: ShareRecord.Pending, _ own: [TemporaryExposureKey],
                                             at now: Moment) -> [ShareAction] {
        guard let token = pending.token else { return [] }
        let requests = ShareRequests(settings: settings)
        let keys = requests.keysToShare(own, at: ENIntervalNumber(unixSeconds: now.unixSeconds), after: record.publication)
        guard !keys.isEmpty else {
            return finish(.failed, "there are no keys of complete days to share "
                          + (record.publication == nil ? "(the badge has no key from before today)" : "that were not shared already")
                          + ": nothing was sent", now: now)
        }
        switch requests.certificate(token: token, keys: keys, using: &random) {
        case .failure(.notConfigured): return []
        case .failure(.because(let reason)): return finish(.failed, reason, now: now)
        case .success(let (upload, question)):
            request = .certificate(upload)
            return [.log(.info, "key share: asking the health authority for a certificate for \(keys.count) key(s)"
                         + (pending.attempts > 0 ? " (attempt \(pending.attempts + 1))" : "")),
                    .send(.certificate, question)]
        }
    }

    private mutating func certified(_ answer: Result<HealthAuthorityResponse, HealthAuthorityError>, _ upload: KeyUpload,
                                    at now: Moment) -> [ShareAction] {
        guard var pending = record.pending else { return [] }
        do throws(HealthAuthorityError) {
            let response = try answer.get()
            let certificate = try VerificationCertificate(status: response.status, body: response.body)
            pending.certified(certificate.jwt, for: upload, now: now.unixSeconds, settings: settings)
            record.pending = pending
            // The token is used up: what replaces it is on disk before the publish goes out.
            wantsKeys = true
            return [.saveRecord(record), .readKeys]
        } catch {
            return failed(error, at: .certificate, now: now)
        }
    }

    private mutating func publish(_ pending: ShareRecord.Pending, _ own: [TemporaryExposureKey],
                                  at now: Moment) -> [ShareAction] {
        switch ShareRequests(settings: settings).publish(pending, own: own, at: ENIntervalNumber(unixSeconds: now.unixSeconds),
                                                         revisionToken: record.publication?.revisionToken, using: &random) {
        case .failure(.notConfigured): return []
        case .failure(.because(let reason)): return finish(.failed, reason, now: now)
        case .success(let (count, question)):
            request = .publish
            return [.log(.info, "key share: sending \(count) key(s) to the key server"
                         + (pending.attempts > 0 ? " (attempt \(pending.attempts + 1))" : "")),
                    .send(.publish, question)]
        }
    }

    private mutating func published(_ answer: PublishOutcome, keys starts: [UInt32], at now: Moment) -> [ShareAction] {
        let earlier = record.publication?.keyStarts ?? []
        record.publication = ShareRecord.Publication(revisionToken: answer.revisionToken,
                                                     keyStarts: Array(Set(earlier + starts)).sorted(),
                                                     publishedAt: now.unixSeconds)
        return finish(.publication(answer, keys: starts, at: now.unixSeconds), now: now)
    }

    /// A failed certificate or publish request: retried, kept for a retry, or the end of the share.
    private mutating func failed(_ error: HealthAuthorityError, at endpoint: PublishingEndpoint,
                                 now: Moment) -> [ShareAction] {
        guard var pending = record.pending else { return [] }
        switch ShareRetry.after(error, at: endpoint, pending: &pending, now: now.unixSeconds, settings: settings,
                                using: &random) {
        case .giveUp(let message):
            return finish(.failed, message, now: now)
        case .retry(let outcome, let announce):
            record.pending = pending
            let told = announce ? report(outcome, level: .warn)
                : [.saveRecord(record), .log(.info, "key share: \(outcome.message)")]
            return told + advance(at: now)
        }
    }

    /// Ends the share under way (the token, certificate and secret go with it) and reports how.
    private mutating func finish(_ outcome: ShareOutcome, now: Moment) -> [ShareAction] {
        record.pending = nil
        let level: Logger.Level = outcome.kind == .published || outcome.kind == .cancelled ? .info : .warn
        return report(outcome, level: level) + advance(at: now)
    }

    private mutating func finish(_ kind: ShareOutcome.Kind, _ message: String, now: Moment) -> [ShareAction] {
        finish(ShareOutcome(kind: kind, message: message, at: max(now.unixSeconds, 0)), now: now)
    }

    /// Keeps `outcome` (and whatever changed with it) on disk, then logs it and has `notify.command` run with it.
    private mutating func report(_ outcome: ShareOutcome, level: Logger.Level) -> [ShareAction] {
        record.outcome = outcome
        let failed = outcome.kind == .failed || outcome.kind == .expired
        return [.saveRecord(record), .log(level, "key share: \(failed ? "FAILED: " : "")\(outcome.message)"),
                .notify(outcome)]
    }
}
