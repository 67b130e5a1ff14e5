import ENCore
import EventLoop
import SystemIO

/// Shares a positive wearer's keys through the health authority (PUBLISH.md): the code staff type is checked
/// at once (`/api/verify`), and once the UTC day of consent has ended — the day's key is off the air — the keys
/// of complete days get a certificate (`/api/certificate`, with the HMAC over exactly those keys) and are
/// published (`/v1/publish`) at once.
///
/// Everything it must not lose is in `DATA/share` (see `ShareRecord`) before it is acted on, so a restart
/// resumes where it was. Network errors and 5xx are retried with backoff on the loop for as long as the token
/// (or, once used, the certificate) lives; a share that runs out of time is reported, never dropped silently.
/// Every outcome goes to the log (without a code, token, certificate, secret or key), to `keys share status`
/// and `status`, and to `notify.command` as a `keyShare` event.
public final class KeyShare {
    public private(set) var settings: KeyShareSettings
    /// The last failed write of `DATA/share`, nil once one succeeds.
    public private(set) var storageError: SystemError?
    /// Chaff requests sent since start.
    public private(set) var chaffSent = 0
    /// Called with every outcome once it is on disk (the agent shows the final ones on the LED and buzzer).
    public var onOutcome: ((ShareOutcome) -> Void)?

    private let loop: any EventLoop
    private let clock: Clock
    /// The badge's own keys (the advertiser's, as in `DATA/keys`).
    private let ownKeys: () -> [TemporaryExposureKey]
    private let transport: any HealthAuthorityTransport
    private let notifier: ExposureNotifier
    private let fileSystem: any FileSystem
    private let path: String
    private var generator: Generator
    private let log: Logger

    private(set) var record: ShareRecord
    private var started = false
    private var wakeTimer: TimerHandle?
    private var chaffTimer: TimerHandle?
    /// The certificate or publish request under way.
    private var request: (endpoint: PublishingEndpoint, cancel: () -> Void)?
    /// `keys share` waiting for /api/verify: how to drop the request, and whom to answer.
    private var verification: (cancel: () -> Void, answer: (Result<KeyShareStatus, KeyShareError>) -> Void)?
    private var chaffCancel: (() -> Void)?

    public init(loop: any EventLoop, clock: Clock, ownKeys: @escaping () -> [TemporaryExposureKey],
                transport: any HealthAuthorityTransport, settings: KeyShareSettings, notifier: ExposureNotifier,
                fileSystem: any FileSystem, dataDirectory: String,
                generator: any RandomNumberGenerator = SystemRandomNumberGenerator(), log: Logger) {
        self.loop = loop
        self.clock = clock
        self.ownKeys = ownKeys
        self.transport = transport
        self.settings = settings
        self.notifier = notifier
        self.fileSystem = fileSystem
        path = dataDirectory + "/" + ShareRecord.fileName
        self.generator = Generator(base: generator)
        self.log = log
        if let bytes = try? fileSystem.contents(of: path) {
            record = ShareRecord(text: String(decoding: bytes, as: UTF8.self))
        } else {
            record = ShareRecord()
        }
    }

    /// Resumes what `DATA/share` holds: a share due is published (once the clock is trusted), one whose time
    /// ran out while the badge was off is reported.
    public func start() {
        guard !started else { return }
        started = true
        if let pending = record.pending {
            log.info("key share: resuming the share of \(UTCDateTime(unixSeconds: pending.consentedAt)) "
                     + "(publishing after \(UTCDateTime(unixSeconds: pending.publishAfter)))")
        }
        advance()
        scheduleChaff()
    }

    /// Drops requests under way (a share resumes at the next start) and the timers.
    public func stop() {
        started = false
        request?.cancel()
        request = nil
        if let verification {
            self.verification = nil
            verification.cancel()
            verification.answer(.failure(.interrupted))
        }
        chaffCancel?()
        chaffCancel = nil
        for timer in [wakeTimer, chaffTimer].compactMap({ $0 }) { loop.cancel(timer) }
        wakeTimer = nil
        chaffTimer = nil
    }

    /// New `share.*` settings: a share waiting because of them is tried again at once.
    public func reconfigure(_ settings: KeyShareSettings) {
        let changed = settings != self.settings
        self.settings = settings
        guard changed else { return }
        if var pending = record.pending, request == nil, pending.attempts > 0, pending.certificate == nil {
            pending.retryAt = nil
            record.pending = pending
        }
        advance()
        scheduleChaff()
    }

    /// The clock became trusted, or jumped: what is due is judged by the new time.
    public func clockChanged() { advance() }

    // MARK: Staff

    /// `keys share CODE`: checks the code with the verification server now; `answer` gets the share as it then
    /// stands, or why the code was not accepted. Throws, before anything leaves the badge, when the share cannot
    /// start at all.
    public func share(code typed: String, testDate: UTCDay?, symptomOnset: UTCDay?,
                      answer: @escaping (Result<KeyShareStatus, KeyShareError>) -> Void) throws(KeyShareError) {
        guard settings.isConfigured, let url = settings.url(for: .verify) else {
            throw .notConfigured(missing: settings.missingKeys)
        }
        guard clock.isTrusted else { throw .clockNotTrusted }
        if let pending = record.pending { throw .alreadyUnderWay(publishAfter: pending.publishAfter) }
        guard verification == nil else { throw .busy }
        let code: VerificationCode
        do { code = try VerificationCode(typed) } catch { throw .invalidCode(error) }
        let today = UTCDay(unixSeconds: clock.unixSeconds)
        try Self.check(testDate, option: "--test-date", today: today)
        try Self.check(symptomOnset, option: "--symptom-onset", today: today)
        let body: String
        do { body = try VerifyCodeRequest(code: code).body(using: &generator) } catch {
            throw .refused("the badge could not build the request (\(error)): report this to its maintainer")
        }
        log.info("key share: checking a verification code with the health authority")
        verification = ({}, answer)
        verification?.cancel = send(.verify, url: url, body: body) { [weak self] result in
            guard let self, let verification else { return }
            self.verification = nil
            do throws(HealthAuthorityError) {
                let response = try result.get()
                let verified = try VerifiedCode(status: response.status, body: response.body)
                verification.answer(.success(accepted(verified, testDate: testDate, symptomOnset: symptomOnset)))
            } catch {
                verification.answer(.failure(.refused(codeRefused(error))))
            }
        }
    }

    /// `keys share cancel`: ends the share under way; its token is thrown away (a new share needs a new code).
    @discardableResult
    public func cancel() throws(KeyShareError) -> KeyShareStatus {
        if let verification {
            self.verification = nil
            verification.cancel()
            verification.answer(.failure(.refused("cancelled before the health authority answered: nothing was kept")))
        } else if record.pending == nil {
            throw .nothingToCancel
        }
        request?.cancel()
        request = nil
        if record.pending != nil {
            finish(.cancelled, "cancelled by staff: no keys were shared, and the code's verification was discarded")
        }
        return status
    }

    /// `wipe`: the share under way and what an earlier publish left are deleted with the keys they are about.
    public func removeAll() throws(SystemError) {
        if let verification {
            self.verification = nil
            verification.cancel()
            verification.answer(.failure(.refused("the badge was wiped before the health authority answered: nothing was kept")))
        }
        request?.cancel()
        request = nil
        let hadShare = record.pending != nil
        record = ShareRecord()
        try fileSystem.removeFile(path)
        storageError = nil
        if hadShare {
            record.outcome = ShareOutcome(kind: .cancelled, message: "deleted by wipe: no keys were shared", at: now)
            save()
        }
        advance()
    }

    // MARK: Status

    public var status: KeyShareStatus {
        var s = KeyShareStatus()
        s.missingKeys = settings.missingKeys
        s.lastOutcome = record.outcome
        s.holdsRevisionToken = record.publication?.revisionToken != nil
        s.publishedKeys = record.publication?.keyStarts.count
        s.publishedAt = record.publication?.publishedAt
        guard let p = record.pending else {
            if verification != nil {
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
        s.nextAttemptAt = request == nil ? p.nextAttemptAt : nil
        s.usableUntil = p.usableUntil
        s.attempts = p.attempts
        s.lastError = p.lastError
        s.holdsToken = p.token != nil
        s.holdsCertificate = p.certificate != nil
        s.holdsSecret = p.secret != nil
        let until = UTCDateTime(unixSeconds: p.usableUntil)
        if let request {
            s.phase = .publishing
            s.state = request.endpoint == .publish ? "sending \(p.keyStarts.count) keys to the key server"
                : "asking the health authority for a certificate"
        } else if p.attempts > 0 {
            s.phase = .retrying
            s.state = "attempt \(p.attempts) failed (\(p.lastError ?? "")); next try at "
                + "\(UTCDateTime(unixSeconds: p.nextAttemptAt)), possible until \(until)"
        } else {
            s.phase = .waiting
            s.state = "code accepted at \(UTCDateTime(unixSeconds: p.consentedAt)); the keys of complete days are "
                + "published after \(UTCDateTime(unixSeconds: p.publishAfter))"
            if !clock.isTrusted { s.state += " (waiting for a trusted clock)" }
            if !settings.isConfigured { s.state += " (waiting for " + KeyShareError.list(s.missingKeys) + ")" }
        }
        return s
    }

    // MARK: Verification

    private static func check(_ day: UTCDay?, option: String, today: UTCDay) throws(KeyShareError) {
        guard let day else { return }
        if day > today { throw .badDate(option: option, reason: "\(day) is after today (\(today)): check the date") }
        if day.days(until: today) > 28 {
            throw .badDate(option: option, reason: "\(day) is more than 28 days ago: the key server ignores such a date; "
                           + "check it, or leave the option out")
        }
    }

    /// The code was accepted: the share is kept, to be published once the day of consent has ended.
    private func accepted(_ verified: VerifiedCode, testDate: UTCDay?, symptomOnset: UTCDay?) -> KeyShareStatus {
        let now = self.now
        let tokenExpiresAt = Self.expiry(claimed: JWTExpiry.unixSeconds(of: verified.token), now: now,
                                         assumed: settings.tokenLifetime, longest: 30 * 86_400)
        let delay = Int64.random(in: settings.publishDelay, using: &generator)
        var publishAfter = UTCDay(unixSeconds: now).unixSeconds + UTCDay.secondsPerDay + delay
        var note = ""
        if publishAfter > tokenExpiresAt - 600 {
            // A token shorter than the rest of the day: the days before today still go out in time.
            publishAfter = max(now + 60, tokenExpiresAt - 1800)
            note = "; the verification expires at \(UTCDateTime(unixSeconds: tokenExpiresAt)), before today's key is "
                + "complete, so only the days before today are shared"
        }
        // Staff's dates first; the code's own (the health authority's records) otherwise.
        let pending = ShareRecord.Pending(consentedAt: now, testType: verified.testType, testDate: testDate ?? verified.testDate,
                                          symptomOnset: symptomOnset ?? verified.symptomDate, token: verified.token,
                                          tokenExpiresAt: tokenExpiresAt, publishAfter: publishAfter)
        record.pending = pending
        let type = verified.testType == .confirmed ? "a confirmed test" : "a \(verified.testType.rawValue) result"
        let dates = [pending.testDate.map { "test date \($0)" }, pending.symptomOnset.map { "symptom onset \($0)" }]
            .compactMap { $0 }
        let message = "code accepted: \(type)" + (dates.isEmpty ? "" : " (" + dates.joined(separator: ", ") + ")")
            + "; the keys of complete days are published after \(UTCDateTime(unixSeconds: publishAfter))" + note
        report(ShareOutcome(kind: .verified, message: message, at: now), level: .info)
        advance()
        return status
    }

    /// The words for a code that was not accepted. Nothing is kept, so a failure worth retrying is the staff's
    /// to retry (the code is still valid): the message says so instead of promising a retry.
    private func codeRefused(_ error: HealthAuthorityError) -> String {
        let message: String
        if error.disposition == .retryLater {
            let reason: String = switch error {
            case .unreachable(let detail, _): detail
            case .httpStatus(let status, _): "HTTP \(status)"
            case .refused(let code, _, let status): "\(code.rawValue), HTTP \(status)"
            case .unknownErrorCode(let code, _, let status): "\(code), HTTP \(status)"
            case .malformedAnswer(let detail, _): detail
            }
            message = "the health authority's verification server could not check the code now (\(reason)): "
                + "nothing was kept; enter the code again in a few minutes"
        } else {
            message = error.description
        }
        report(ShareOutcome(kind: .refused, message: message, at: now), level: .warn)
        return message
    }

    // MARK: Publishing

    private var now: Int64 { clock.unixSeconds }

    /// Does what is due now, and sets the timer for what is due next.
    private func advance() {
        if let wakeTimer { loop.cancel(wakeTimer) }
        wakeTimer = nil
        guard started else { return }
        let now = self.now
        var tidied = record
        tidied.removeLapsed(at: now)
        if tidied != record {
            record = tidied
            save()
        }
        var wakeAt = record.nextLapse
        if let pending = record.pending, request == nil {
            // `expire` ends the share, which comes back here.
            if now >= pending.usableUntil { return expire(pending) }
            let due = now >= pending.nextAttemptAt
            if due && clock.isTrusted && settings.isConfigured {
                // A request goes out (its answer comes back here), or the share ends (which comes back here).
                return attempt(pending)
            } else {
                // Not due, or due and waiting for the clock or the settings (they call `advance` when they change).
                wakeAt = [wakeAt, pending.usableUntil, due ? nil : pending.nextAttemptAt].compactMap { $0 }.min()
            }
        }
        guard request == nil, let wakeAt else { return }
        wakeTimer = loop.schedule(after: .seconds(max(0, wakeAt - now))) { [weak self] in
            self?.wakeTimer = nil
            self?.advance()
        }
    }

    private func attempt(_ pending: ShareRecord.Pending) {
        if pending.certificate != nil { publish(pending) } else { requestCertificate(pending) }
    }

    /// The keys of complete days of the last 14, less those an earlier publish stored when there is no revision
    /// token to send them again with.
    private func keysToShare() -> [PublishedKey] {
        guard let interval = clock.interval else { return [] }
        var keys = PublishableKeys.select(ownKeys(), at: interval)
        if let publication = record.publication, publication.revisionToken == nil {
            keys.removeAll { publication.keyStarts.contains($0.rollingStartNumber.value) }
        }
        return keys
    }

    private func requestCertificate(_ pending: ShareRecord.Pending) {
        guard let token = pending.token, let url = settings.url(for: .certificate) else { return }
        let keys = keysToShare()
        guard !keys.isEmpty else {
            return finish(.failed, "there are no keys of complete days to share "
                          + (record.publication == nil ? "(the badge has no key from before today)" : "that were not shared already")
                          + ": nothing was sent")
        }
        let upload: KeyUpload, body: String
        do {
            upload = try KeyUpload(keys: keys, using: &generator)
            body = try CertificateRequest(token: token, upload: upload).body(using: &generator)
        } catch {
            return finish(.failed, "the badge could not build the certificate request (\(error)): report this to its "
                          + "maintainer; nothing was sent")
        }
        log.info("key share: asking the health authority for a certificate for \(keys.count) key(s)"
                 + (pending.attempts > 0 ? " (attempt \(pending.attempts + 1))" : ""))
        request = (.certificate, {})
        request?.cancel = send(.certificate, url: url, body: body) { [weak self] result in
            guard let self, request?.endpoint == .certificate, var pending = record.pending else { return }
            request = nil
            do throws(HealthAuthorityError) {
                let response = try result.get()
                let certificate = try VerificationCertificate(status: response.status, body: response.body)
                let now = self.now
                pending.token = nil
                pending.certificate = certificate.jwt
                pending.certificateExpiresAt = Self.expiry(claimed: JWTExpiry.unixSeconds(of: certificate.jwt), now: now,
                                                           assumed: settings.certificateLifetime, longest: 86_400)
                pending.secret = upload.secret
                pending.keyStarts = upload.keys.map(\.rollingStartNumber.value)
                pending.attempts = 0
                pending.retryAt = nil
                record.pending = pending
                // The token is used up: what replaces it is on disk before the publish goes out.
                save()
                publish(pending)
            } catch {
                failed(error, at: .certificate)
            }
        }
    }

    private func publish(_ pending: ShareRecord.Pending) {
        guard let certificate = pending.certificate, let secret = pending.secret, let url = settings.url(for: .publish),
              let healthAuthorityID = settings.healthAuthorityID else { return }
        // Exactly the keys the certificate's HMAC covers, from the key file; none still on air.
        let complete = ownKeys().filter { $0.rollingEnd <= UInt64(clock.interval?.value ?? 0) }
        var keys: [PublishedKey] = []
        for start in pending.keyStarts {
            guard let key = complete.first(where: { $0.rollingStart.value == start }) else { break }
            keys.append(PublishedKey(key))
        }
        guard keys.count == pending.keyStarts.count else {
            return finish(.failed, "the badge's keys changed after the certificate was issued, so they cannot be shared "
                          + "with it: ask the health authority for a new code")
        }
        let body: String
        do {
            let upload = try KeyUpload(keys: keys, secret: secret)
            body = try PublishRequest(upload: upload, certificate: certificate, healthAuthorityID: healthAuthorityID,
                                      symptomOnset: pending.symptomOnset ?? pending.testDate,
                                      revisionToken: record.publication?.revisionToken).body(using: &generator)
        } catch {
            return finish(.failed, "the badge could not build the publish request (\(error)): report this to its "
                          + "maintainer, and ask the health authority for a new code")
        }
        log.info("key share: sending \(keys.count) key(s) to the key server"
                 + (pending.attempts > 0 ? " (attempt \(pending.attempts + 1))" : ""))
        request = (.publish, {})
        request?.cancel = send(.publish, url: url, body: body) { [weak self] result in
            guard let self, request?.endpoint == .publish, let pending = record.pending else { return }
            request = nil
            do throws(HealthAuthorityError) {
                let response = try result.get()
                published(try PublishOutcome(status: response.status, body: response.body), keys: pending.keyStarts)
            } catch {
                failed(error, at: .publish)
            }
        }
    }

    private func published(_ answer: PublishOutcome, keys starts: [UInt32]) {
        let now = self.now
        let earlier = record.publication?.keyStarts ?? []
        record.publication = ShareRecord.Publication(revisionToken: answer.revisionToken,
                                                     keyStarts: Array(Set(earlier + starts)).sorted(), publishedAt: now)
        let warnings = answer.warnings.prefix(5).map(Self.serverWords)
        let days = starts.map { UTCDay(ENIntervalNumber($0)).description }.sorted()
        let span = days.count == 1 ? "of \(days[0])" : "of \(days.first ?? "") to \(days.last ?? "")"
        if answer.isPartialFailure {
            finish(.partiallyPublished, "the key server stored \(answer.insertedExposures) of \(starts.count) keys \(span) "
                   + "and dropped the rest" + (warnings.isEmpty ? "" : ": " + warnings.joined(separator: "; ")),
                   keys: starts.count, inserted: answer.insertedExposures, warnings: Array(warnings))
        } else {
            finish(.published, "shared \(starts.count) key(s) \(span) with the key server (\(answer.insertedExposures) stored)",
                   keys: starts.count, inserted: answer.insertedExposures)
        }
    }

    /// A failed certificate or publish request: retried, kept for a retry, or the end of the share.
    private func failed(_ error: HealthAuthorityError, at endpoint: PublishingEndpoint) {
        guard var pending = record.pending else { return }
        let now = self.now
        let message = error.description
        switch (error.disposition, endpoint) {
        case (.retryLater, _):
            pending.attempts += 1
            let policy = endpoint == .publish ? settings.publishRetry : settings.certificateRetry
            let jitter = Double.random(in: 0.5..<1.5, using: &generator)
            pending.retryAt = now + policy.delay(afterAttempt: pending.attempts, jitter: jitter).components.seconds
        case (.checkConfiguration, .certificate), (.badgeFault, .certificate):
            // The token is not used up by a refusal: it stays, to be tried again once the settings are fixed.
            pending.attempts += 1
            pending.retryAt = now + settings.settingsRetryDelay.components.seconds
        case (.newCodeNeeded, _):
            return finish(.failed, message)
        case (.checkConfiguration, .publish), (.badgeFault, .publish), (_, .verify):
            return finish(.failed, message + "; the code's verification is used up: ask the health authority for a new code")
        }
        pending.lastError = message
        let retryAt = pending.nextAttemptAt
        let announce = !pending.retryAnnounced
        pending.retryAnnounced = true
        record.pending = pending
        let until = UTCDateTime(unixSeconds: pending.usableUntil)
        let text = "\(message); next try at \(UTCDateTime(unixSeconds: retryAt)) (attempt \(pending.attempts + 1)), "
            + "possible until \(until)"
        if announce {
            // Told once per share, not at every retry: the log and notify.command would drown in a long outage.
            report(ShareOutcome(kind: .retrying, message: text, at: now, retryAt: retryAt), level: .warn)
        } else {
            save()
            log.info("key share: \(text)")
        }
        advance()
    }

    private func expire(_ pending: ShareRecord.Pending) {
        let last = pending.lastError.map { " (last error: \($0))" } ?? ""
        if pending.certificate != nil {
            finish(.expired, "the certificate ran out before the key server confirmed the keys\(last): ask the health "
                   + "authority for a new code", at: pending.usableUntil)
        } else {
            finish(.expired, "the code's verification expired at \(UTCDateTime(unixSeconds: pending.usableUntil)) before "
                   + "the keys could be shared\(last): nothing was shared; ask the health authority for a new code",
                   at: pending.usableUntil)
        }
    }

    /// Ends the share under way with `kind` (the token, certificate and secret go with it) and reports it.
    private func finish(_ kind: ShareOutcome.Kind, _ message: String, at: Int64? = nil, keys: Int? = nil,
                        inserted: Int? = nil, warnings: [String] = []) {
        record.pending = nil
        let level: Logger.Level = kind == .published || kind == .cancelled ? .info : .warn
        report(ShareOutcome(kind: kind, message: message, at: max(at ?? now, 0), keys: keys, insertedExposures: inserted,
                            warnings: warnings), level: level)
        advance()
    }

    /// Keeps `outcome` (and whatever changed with it) on disk, logs it, and runs `notify.command` with it.
    private func report(_ outcome: ShareOutcome, level: Logger.Level) {
        record.outcome = outcome
        save()
        log.log(level, "key share: \(outcome.kind == .failed || outcome.kind == .expired ? "FAILED: " : "")\(outcome.message)")
        notifier.notify(event: outcome.eventJSON, label: "key share \(outcome.kind.rawValue)")
        onOutcome?(outcome)
    }

    // MARK: Requests

    /// One call of the upload, its body padded already; `completion` gets the answer to read, or the transport's
    /// failure as the same typed error a server's refusal is.
    private func send(_ endpoint: PublishingEndpoint, url: String, body: String,
                      completion: @escaping (Result<HealthAuthorityResponse, HealthAuthorityError>) -> Void) -> () -> Void {
        let request = HealthAuthorityRequest(url: url, headers: settings.headers(for: endpoint), body: Array(body.utf8),
                                             caFile: settings.caFile)
        return transport.send(request) { result in
            switch result {
            case .success(let response): completion(.success(response))
            case .failure(.unreachable(let reason)): completion(.failure(.unreachable(reason, endpoint: endpoint)))
            case .failure(.unusable(let reason)): completion(.failure(.malformedAnswer(reason, endpoint: endpoint)))
            }
        }
    }

    // MARK: Chaff

    /// Chaff at random times, `share.chaff_per_day` a day on average: uniformly within 0.1–1.9 times the mean
    /// gap, so that neither its rhythm nor its absence marks a real share.
    private func scheduleChaff() {
        if let chaffTimer { loop.cancel(chaffTimer) }
        chaffTimer = nil
        guard started, settings.chaffPerDay > 0, settings.isConfigured else { return }
        let meanGap = 86_400.0 / Double(settings.chaffPerDay)
        let gap = meanGap * Double.random(in: 0.1..<1.9, using: &generator)
        chaffTimer = loop.schedule(after: .seconds(gap)) { [weak self] in
            guard let self else { return }
            chaffTimer = nil
            sendChaff()
            scheduleChaff()
        }
    }

    /// One chaff exchange, shaped like a real one: a code check, or a certificate request followed at once by a
    /// publish. Answers are not read (the verification server's is not even JSON). None while a real request is
    /// under way.
    private func sendChaff() {
        guard request == nil, verification == nil, chaffCancel == nil, let healthAuthorityID = settings.healthAuthorityID,
              let verify = settings.url(for: .verify), let certificate = settings.url(for: .certificate),
              let publish = settings.url(for: .publish) else { return }
        let asVerification = Bool.random(using: &generator)
        let first: HealthAuthorityRequest, second: HealthAuthorityRequest?
        do {
            if asVerification {
                first = chaffRequest(.verify, verify, try ChaffRequest.verifyBody(using: &generator))
                second = nil
            } else {
                first = chaffRequest(.certificate, certificate, try ChaffRequest.certificateBody(using: &generator))
                second = chaffRequest(.publish, publish, try ChaffRequest.publishBody(healthAuthorityID: healthAuthorityID,
                                                                                       using: &generator))
            }
        } catch {
            return log.warn("key share: no chaff: \(error)")
        }
        chaffSent += 1
        log.debug("key share: chaff (\(asVerification ? "a code check" : "a certificate and a publish"))")
        chaffCancel = transport.send(first) { [weak self] _ in
            guard let self else { return }
            chaffCancel = nil
            guard let second, request == nil else { return }
            chaffCancel = transport.send(second) { [weak self] _ in self?.chaffCancel = nil }
        }
    }

    private func chaffRequest(_ endpoint: PublishingEndpoint, _ url: String, _ body: String) -> HealthAuthorityRequest {
        HealthAuthorityRequest(url: url, headers: settings.headers(for: endpoint, chaff: true), body: Array(body.utf8),
                               caFile: settings.caFile)
    }

    // MARK: Helpers

    /// The service's random numbers (secrets, padding, timing) through one concrete type: the generic request
    /// builders then take it without opening an existential at each call.
    private struct Generator: RandomNumberGenerator {
        var base: any RandomNumberGenerator
        mutating func next() -> UInt64 { base.next() }
    }

    private func save() {
        do {
            if record.isEmpty {
                try fileSystem.removeFile(path)
            } else {
                try fileSystem.replaceAtomically(path, with: Array(record.text.utf8))
            }
            if storageError != nil { log.info("key share: \(path) written again") }
            storageError = nil
        } catch {
            if storageError != error {
                log.error(.keyShareUnsaved, "key share: cannot write \(path) (\(error)): the share goes on, but a restart now would lose it")
            }
            storageError = error
        }
    }

    /// A lifetime as claimed, when it is plausible (after now, within `longest`); `assumed` from now otherwise.
    static func expiry(claimed: Int64?, now: Int64, assumed: Int64, longest: Int64) -> Int64 {
        if let claimed, claimed > now, claimed - now <= longest { return claimed }
        return now + assumed
    }

    /// A server's text, as staff may see it: printable ASCII, at most 200 characters.
    static func serverWords(_ text: String) -> String {
        let printable = text.unicodeScalars.map { $0.value >= 0x20 && $0.value < 0x7F ? Character($0) : "?" }
        return String(printable.prefix(200))
    }
}
