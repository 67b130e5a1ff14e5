import Agent
import ENCore
import EventLoop
import Store

/// One pass over the key server: fetch the listing, then for each new export in turn download it (retrying
/// with backoff), verify it, hold it until its batch is complete, match the batch in loop slices, and record
/// the exposures — committing the cursor after each file, so a run cut short anywhere resumes where it stopped.
///
/// Files are handled one at a time: at most one download and one batch are in memory.
final class SyncRun {
    /// What a run works with; owned by `KeySync`.
    struct Context {
        let loop: any EventLoop
        let http: HTTPClient
        let clock: Clock
        let store: SightingStore
        let exposures: ExposureLog
        let notifier: ExposureNotifier
        let schedule: KeySchedule
        let dataDirectory: String
        let log: Logger
    }

    private enum Fetched {
        case body([UInt8])
        /// The file will not come; move on.
        case skip(HTTPClient.Failure)
        /// Stop the run.
        case failed(HTTPClient.Failure)
    }

    let server: KeyServer
    private let settings: KeySyncSettings
    private let context: Context
    private var cursor: SyncCursor
    private(set) var report = SyncReport()
    private let jitter: () -> Double
    /// Told of every phase change.
    var onPhase: (KeySyncStatus.Phase) -> Void = { _ in }
    /// Called once, unless the run is cancelled.
    var onFinished: (SyncReport, SyncCursor) -> Void = { _, _ in }

    private var transfer: HTTPClient.Transfer?
    private var retryTimer: TimerHandle?
    private var matchJob: BatchMatchJob?
    private var collector = BatchCollector<VerifiedExport>()
    private var listing: [String] = []
    private var pending: [String] = []
    /// Entries processed but not yet in the cursor: files waiting for the rest of their batch.
    private var uncommitted: [String] = []
    /// Built from the stored sightings when the first batch needs it; nil inside when there are none.
    private var matcher: KeyMatcher??
    private var now: Int64 = 0
    private var isOver = false

    private var isIndexed: Bool { if case .indexed = server { true } else { false } }
    private var log: Logger { context.log }

    init(server: KeyServer, settings: KeySyncSettings, cursor: SyncCursor, context: Context, jitter: @escaping () -> Double) {
        self.server = server
        self.settings = settings
        self.cursor = cursor
        self.context = context
        self.jitter = jitter
    }

    func start() {
        now = context.clock.unixSeconds
        report.startedAt = now
        do {
            let removed = try context.exposures.prune(today: UTCDay(unixSeconds: now))
            if removed > 0 { log.info("exposures: removed \(removed) older than 14 days") }
        } catch {
            log.error("exposures: cannot remove old ones: \(error)")
        }
        fetch(server.listingURL, isListing: true, phase: .listing) { [unowned self] fetched in
            guard case .body(let body) = fetched else {
                if case .failed(let failure) = fetched { finish(.failed("listing \(server.listingURL): \(failure)")) }
                return
            }
            listingArrived(body)
        }
    }

    /// Stops at once: no callback, nothing more written. Entries already committed stay committed.
    func cancel() {
        guard !isOver else { return }
        isOver = true
        transfer?.cancel()
        if let retryTimer { context.loop.cancel(retryTimer) }
        matchJob?.cancel()
        report.outcome = .cancelled
    }

    // MARK: Listing

    private func listingArrived(_ body: [UInt8]) {
        if isIndexed {
            listing = KeyServerListing.indexLines(body)
            let (lines, lost) = cursor.pendingLines(in: listing)
            if lost {
                log.info("key sync: the index no longer lists the last processed line; taking all \(lines.count) lines")
            }
            pending = lines
        } else {
            do { listing = try KeyServerListing.days(body) } catch {
                finish(.failed("listing \(server.listingURL): \(error)"))
                return
            }
            pending = cursor.pendingDays(in: listing)
        }
        report.listed = listing.count
        report.new = pending.count
        process(0)
    }

    // MARK: Files

    private func process(_ index: Int) {
        guard !isOver else { return }
        guard index < pending.count else {
            finish(.succeeded)
            return
        }
        let entry = pending[index]
        let phase = KeySyncStatus.Phase.downloading(file: index + 1, of: pending.count)
        fetch(server.exportURL(for: entry), isListing: false, phase: phase) { [unowned self] fetched in
            switch fetched {
            case .body(let body):
                received(body, entry: entry, index: index)
            case .skip(let failure):
                report.skipped += 1
                log.warn("key sync: skipping \(entry): \(failure)")
                processed(entry)
                process(index + 1)
            case .failed(let failure):
                finish(.failed("\(entry): \(failure)"))
            }
        }
    }

    private func received(_ body: [UInt8], entry: String, index: Int) {
        let verifyStart = context.loop.now
        let verified: VerifiedExport
        do {
            verified = try settings.keyring.verify(ExportArchive(zip: body))
        } catch {
            report.verifyTime += context.loop.now - verifyStart
            report.rejected += 1
            log.warn("key sync: rejected \(entry): \(error)")
            processed(entry)
            process(index + 1)
            return
        }
        report.verifyTime += context.loop.now - verifyStart
        switch collector.add(verified) {
        case .waiting(let received, let size):
            log.debug("key sync: \(entry) is file \(verified.batch.number) of \(size) of its batch (\(received) here)")
            report.processed += 1
            processed(entry)
            process(index + 1)
        case .duplicate:
            log.info("key sync: \(entry) repeats file \(verified.batch.number) of a batch already held; ignored")
            report.processed += 1
            processed(entry)
            process(index + 1)
        case .complete(let chunks):
            match(chunks, entry: entry, index: index)
        }
    }

    private func match(_ chunks: [VerifiedExport], entry: String, index: Int) {
        guard let matcher = loadMatcher() else { return }
        onPhase(.matching(file: index + 1, of: pending.count))
        let job = BatchMatchJob(chunks: chunks, matcher: matcher, loop: context.loop)
        matchJob = job
        job.start(keysPerSlice: settings.keysPerSlice) { [weak self] outcome in
            guard let self else { return }
            matchJob = nil
            guard !isOver else { return }
            report.matchTime += outcome.elapsed
            report.matchSlices += outcome.slices
            report.keys += outcome.keys
            report.matchedKeys += outcome.matched.count
            report.revokedKeys += outcome.revoked.count
            for line in outcome.corruptFiles { log.warn("key sync: dropped corrupt export \(line)") }
            guard record(outcome) else { return }
            report.processed += 1
            processed(entry)
            process(index + 1)
        }
    }

    /// The matcher over every stored sighting, built once per run; `.some(nil)` when there are none.
    /// Nil (and the run failed) when the store cannot be read.
    private func loadMatcher() -> KeyMatcher?? {
        if let matcher { return matcher }
        var sightings: [Sighting] = []
        do {
            try context.store.forEach { sighting in
                sightings.append(sighting)
                return .proceed
            }
        } catch {
            finish(.failed("cannot read the sightings: \(error)"))
            return nil
        }
        let built: KeyMatcher? = sightings.isEmpty
            ? nil : KeyMatcher(sightings: sightings, now: now, schedule: context.schedule)
        matcher = .some(built)
        return .some(built)
    }

    /// Scores the batch's matched keys and records them; false (and the run failed) if the log cannot be written.
    private func record(_ outcome: BatchMatchJob.Outcome) -> Bool {
        let today = UTCDay(unixSeconds: now)
        let found = outcome.matched.compactMap { matched in
            ExposureScoring.exposure(to: matched.matchedKey, id: ExposureID(key: matched.key.tek),
                                     v1: settings.riskV1, v2: settings.riskV2, today: today, detectedAt: now)
        }
        let changes: ExposureLog.Changes
        do {
            changes = try context.exposures.apply(found: found, revoked: outcome.revoked)
        } catch {
            finish(.failed("cannot record exposures: \(error)"))
            return false
        }
        report.newExposures += changes.added.count
        if changes.revoked > 0 { log.info("exposures: removed \(changes.revoked) whose key was revoked") }
        let threshold = context.notifier.settings.threshold
        for exposure in changes.added where exposure.riskScore < threshold {
            log.info("exposure \(exposure.id.short) on \(exposure.date): \(exposure.durationMinutes) min, "
                     + "risk score \(exposure.riskScore), below the threshold \(threshold)")
        }
        context.notifier.notifyPending(in: context.exposures)
        return true
    }

    /// Marks an entry done; the cursor moves once no batch is waiting for more files.
    private func processed(_ entry: String) {
        uncommitted.append(entry)
        if collector.incomplete.isEmpty { commit() }
    }

    private func commit() {
        guard !uncommitted.isEmpty else { return }
        cursor.commit(uncommitted, indexed: isIndexed, listed: listing)
        uncommitted.removeAll()
        save()
    }

    private func save() {
        do { try cursor.save(dataDirectory: context.dataDirectory) } catch {
            // Not fatal: the next run repeats some downloads, and exposures are not duplicated.
            log.error("key sync: cannot save the cursor: \(error)")
        }
    }

    private func finish(_ outcome: SyncReport.Outcome) {
        guard !isOver else { return }
        isOver = true
        if outcome == .succeeded {
            for (batch, received) in collector.incomplete {
                log.warn("key sync: batch \(batch) incomplete with \(received) file(s); they are ignored")
            }
            commit()
            cursor.lastSuccess = context.clock.unixSeconds
            save()
        }
        report.outcome = outcome
        report.finishedAt = context.clock.unixSeconds
        onFinished(report, cursor)
    }

    // MARK: Downloads

    /// GETs `url`, retrying what may recover with exponential backoff, up to the policy's attempts.
    /// The completion runs only while the run goes on (never after `cancel`).
    private func fetch(_ url: String, isListing: Bool, phase: KeySyncStatus.Phase, attempt: Int = 1,
                       _ completion: @escaping (Fetched) -> Void) {
        onPhase(phase)
        let started = context.loop.now
        let request = HTTPClient.Request(url: url, maximumBytes: settings.maxFileBytes, caFile: settings.caFile)
        transfer = context.http.get(request) { [weak self] result in
            guard let self else { return }
            transfer = nil
            report.downloadTime += context.loop.now - started
            guard !isOver else { return }
            switch result {
            case .success(let body):
                report.bytes += body.count
                completion(.body(body))
            case .failure(let failure):
                switch RetryPolicy.verdict(for: failure, isListing: isListing) {
                case .retry where attempt < settings.retry.attempts:
                    let delay = settings.retry.delay(afterAttempt: attempt, jitter: jitter())
                    report.retries += 1
                    log.info("key sync: \(failure); attempt \(attempt + 1) of \(settings.retry.attempts) in \(delay)")
                    onPhase(.retrying(attempt: attempt + 1))
                    retryTimer = context.loop.schedule(after: delay) { [weak self] in
                        guard let self else { return }
                        retryTimer = nil
                        report.downloadTime += delay
                        fetch(url, isListing: isListing, phase: phase, attempt: attempt + 1, completion)
                    }
                case .retry, .stopRun:
                    completion(.failed(failure))
                case .skipFile:
                    completion(.skip(failure))
                }
            }
        }
    }
}
