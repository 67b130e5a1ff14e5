import Agent
import ENCore
import EventLoop
import Store
import SystemIO
#if canImport(Glibc)
import Glibc
#endif

/// One pass over the key server: fetch the listing, then for each new export in turn download it to a
/// temporary file (retrying what may recover), check its signature in loop slices, hold it until its batch
/// is complete, match the batch in loop slices through the run's `ExposureDetection`, and record the
/// exposures.
///
/// Bounded by design: the listing is capped in bytes and lines, at most `sync.max_files` exports are
/// fetched, every download is capped in size, time and rate, and an export is never in memory — it is
/// written to a file and read back 64 KiB at a time, for the signature and then for the keys. An entry
/// that cannot be had (malformed, refused by a limit, unverifiable) is skipped and logged once, and the
/// cursor moves past it; only network errors and 5xx (408, 429) are retried, and an export whose retries
/// run out in `sync.give_up_after_runs` runs in a row is skipped too. The cursor moves in memory as entries
/// are processed and is written once, when the run ends however it ends.
///
/// Every file is read once, so a key still under embargo when its file is read (a server that publishes a
/// day's keys as soon as the day is over, read within the two hours after) is held in the cursor, and matched
/// by the first run after its embargo ends.
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
        let downloads: DownloadFolder
        let log: Logger
    }

    /// How a fetch ended, retries included.
    private enum Fetched<Value> {
        case value(Value)
        /// The entry will not come, or must not: move on.
        case skip(HTTPClient.Failure)
        /// Stop the run; `retriesUsedUp` when the failure was worth retrying and every attempt failed.
        case failed(HTTPClient.Failure, retriesUsedUp: Bool)
    }

    /// A verified download waiting for the rest of its batch.
    private struct Held {
        let export: VerifiedExportFile
        let source: DownloadedExport
        let entry: String
    }

    /// The most a published key can still be under embargo: one that became valid just now, for a day, and
    /// the two hours after (SPEC §4).
    static let longestEmbargo = (Int64(ENIntervalNumber.intervalsPerDay) + 12) * ENIntervalNumber.secondsPerInterval

    let server: KeyServer
    private let settings: KeySyncSettings
    private var limits: KeySyncLimits { settings.limits }
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
    private var verification: VerificationJob?
    private var matchJob: BatchMatchJob?
    private var collector = BatchCollector<Held>()
    /// The download being written, until its transfer ends.
    private var writing: (path: String, descriptor: Int32)?
    /// Downloads on disk: removed once matched or refused, and the rest when the run ends.
    private var onDisk: Set<String> = []
    /// The days a Corona-Warn-App server lists (the cursor keeps only those).
    private var listedDays: [String] = []
    private var pending: [KeyServerListing.Entry] = []
    /// Entries processed but not yet in the cursor: files waiting for the rest of their batch.
    private var uncommitted: [String] = []
    /// Built from the stored sightings when the first batch needs it.
    private var detection: ExposureDetection?
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
        // Old exposures are the agent's housekeeping, which deletes only while the clock permits it.
        now = context.clock.unixSeconds
        report.startedAt = now
        // Held keys whose embargo has ended are matched first: that needs no network, so a badge whose key
        // server is unreachable still learns of an exposure it can already see.
        matchReleasedKeys { [unowned self] in fetchListing() }
    }

    private func fetchListing() {
        let url = server.listingURL
        let cap = isIndexed ? limits.maxIndexBytes : KeySyncLimits.maxDayListBytes
        fetch(isListing: true, phase: .listing, { [unowned self] done in
            context.http.get(request(url, maximumBytes: cap), completion: done)
        }) { [unowned self] (fetched: Fetched<[UInt8]>) in
            switch fetched {
            case .value(let body): listingArrived(body)
            case .skip(let failure), .failed(let failure, _):
                finish(.failed("listing \(url): \(explained(failure, isListing: true))"))
            }
        }
    }

    /// Stops at once: no callback. What was processed is kept in the cursor, written now.
    func cancel() {
        guard !isOver else { return }
        isOver = true
        transfer?.cancel()
        if let retryTimer { context.loop.cancel(retryTimer) }
        verification?.cancel()
        matchJob?.cancel()
        save()
        removeDownloads()
        report.outcome = .cancelled
    }

    // MARK: Listing

    private func listingArrived(_ body: [UInt8]) {
        do throws(KeyServerListing.ListingError) {
            if isIndexed {
                let index = try KeyServerListing.index(body, after: cursor.lastLine, limits: limits)
                if index.cursorLost {
                    log.info("key sync: the index no longer lists the last processed line; taking all "
                             + "\(index.pending.count + index.deferred) lines")
                }
                report.listed = index.lineCount
                pending = index.pending
                report.deferred = index.deferred
            } else {
                listedDays = try KeyServerListing.days(body)
                let days = cursor.pendingDays(in: listedDays)
                report.listed = listedDays.count
                pending = days.prefix(limits.maxFiles).map { KeyServerListing.Entry(name: $0) }
                report.deferred = days.count - pending.count
            }
        } catch {
            return finish(.failed("listing \(server.listingURL): \(error)"))
        }
        report.new = pending.count + report.deferred
        if report.deferred > 0 {
            log.info("key sync: \(report.new) new exports listed; \(pending.count) now, \(report.deferred) in the next "
                     + "sync (sync.max_files)")
        }
        process(0)
    }

    /// Matches the keys earlier runs held whose embargo is now over, as one more file, in loop slices like a
    /// downloaded batch: `SyncCursor.maxHeldKeys` keys take 84 ms on x86 with AES and SHA instructions hidden
    /// from libcrypto (`bench match`), and a Pi's core is several times slower. They leave the cursor once
    /// their exposures are recorded; then `next`, unless the run failed or was cancelled meanwhile (the
    /// cursor still holds them then).
    private func matchReleasedKeys(then next: @escaping () -> Void) {
        var remaining = cursor
        let released = remaining.releaseHeldKeys(at: now)
        guard !released.isEmpty else { return next() }
        let held = BatchMatchJob.File(keys: .held(released), name: "keys held until their embargo ended")
        runMatchJob([held], phase: .matchingHeldKeys) { [unowned self] detection, _ in
            guard record(detection) else { return }
            cursor.heldKeys = remaining.heldKeys
            report.releasedKeys = released.count
            log.info("key sync: matched \(released.count) key(s) held until their embargo ended")
            next()
        }
    }

    // MARK: Files

    private func process(_ first: Int) {
        guard !isOver else { return }
        // Malformed lines are passed over here, in a loop: a long run of them must not nest calls.
        var index = first
        while index < pending.count, let problem = pending[index].problem {
            skip(pending[index].name, problem)
            index += 1
        }
        guard index < pending.count else { return finish(.succeeded) }
        let entry = pending[index]
        let file: (path: String, descriptor: Int32)
        do { file = try context.downloads.create() } catch {
            return finish(.failed("cannot store a download in \(context.dataDirectory): \(error)"))
        }
        writing = file
        onDisk.insert(file.path)
        let url = server.exportURL(for: entry.name)
        fetch(isListing: false, phase: .downloading(file: index + 1, of: pending.count), { [unowned self] done in
            // Each attempt starts from an empty file.
            _ = ftruncate(file.descriptor, 0)
            return context.http.download(request(url, maximumBytes: limits.maxFileBytes), to: file.descriptor,
                                         path: file.path, completion: done)
        }) { [unowned self] (fetched: Fetched<Int>) in
            close(file.descriptor)
            writing = nil
            switch fetched {
            case .value(let bytes):
                report.bytes += bytes
                // Checking and matching take a while; libcurl (~5 MB resident) comes back for the next download.
                context.http.unloadIfIdle()
                verify(file.path, entry: entry.name, index: index)
            case .skip(let failure):
                removeDownload(file.path)
                skip(entry.name, explained(failure, isListing: false))
                process(index + 1)
            case .failed(let failure, let retriesUsedUp):
                removeDownload(file.path)
                guard retriesUsedUp else { return finish(.failed("\(entry.name): \(failure)")) }
                giveUpOrStop(entry.name, failure, index)
            }
        }
    }

    /// An entry whose retries ran out: the run stops, unless this is the `sync.give_up_after_runs`-th run in a
    /// row to stop on it, which skips it instead.
    private func giveUpOrStop(_ entry: String, _ failure: HTTPClient.Failure, _ index: Int) {
        let runs = (cursor.failing?.entry == entry ? cursor.failing?.runs ?? 0 : 0) + 1
        guard runs >= limits.giveUpAfterRuns else {
            cursor.failing = SyncCursor.Failing(entry: entry, runs: runs)
            return finish(.failed("\(entry): \(failure)"))
        }
        skip(entry, "given up after \(runs) sync(s) in a row could not download it (sync.give_up_after_runs): "
             + "\(failure)")
        process(index + 1)
    }

    private func verify(_ path: String, entry: String, index: Int) {
        onPhase(.verifying(file: index + 1, of: pending.count))
        let started = context.loop.now
        let source: DownloadedExport
        let job: VerificationJob
        do {
            source = try DownloadedExport(path: path)
            let file = try ExportFile(source: source, maxExportBinSize: limits.maxFileBytes)
            job = VerificationJob(try file.verification(with: settings.keyring), loop: context.loop)
        } catch let error as ExportFileError {
            report.verifyTime += context.loop.now - started
            return refused(entry, path: path, error, index)
        } catch {
            return finish(.failed("cannot read the download of \(entry): \(error)"))
        }
        verification = job
        job.start { [unowned self] result, _ in
            verification = nil
            report.verifyTime += context.loop.now - started
            guard !isOver else { return }
            source.close()
            switch result {
            case .failure(let error):
                refused(entry, path: path, error, index)
            case .success(let verified):
                collect(Held(export: verified, source: source, entry: entry), path: path, index: index)
            }
        }
    }

    private func collect(_ held: Held, path: String, index: Int) {
        let batch = held.export.batch
        switch collector.add(held, at: batch) {
        case .waiting(let received, let size):
            log.debug("key sync: \(held.entry) is file \(batch.number) of \(size) of its batch (\(received) here)")
            report.processed += 1
            processed(held.entry)
            process(index + 1)
        case .duplicate:
            log.info("key sync: \(held.entry) repeats file \(batch.number) of a batch already held; ignored")
            removeDownload(path)
            report.processed += 1
            processed(held.entry)
            process(index + 1)
        case .complete(let files):
            match(files, entry: held.entry, index: index)
        }
    }

    private func match(_ files: [Held], entry: String, index: Int) {
        runMatchJob(files.map { .init(keys: .export($0.export), name: $0.entry) },
                    phase: .matching(file: index + 1, of: pending.count)) { [unowned self] detection, outcome in
            for file in files {
                file.source.close()
                removeDownload(file.source.path)
            }
            for line in outcome.corruptFiles {
                log.warn("key sync: dropped corrupt export \(line)")
                report.refuse("dropped corrupt export \(line)")
            }
            guard record(detection) else { return }
            report.processed += 1
            processed(entry)
            process(index + 1)
        }
    }

    /// Feeds `files` to the run's detection in loop slices (in `phase`, if given); then, unless the run has
    /// ended meanwhile, counts the job's time and the detection's figures in the report and calls `matched`.
    private func runMatchJob(_ files: [BatchMatchJob.File], phase: KeySyncStatus.Phase? = nil,
                             matched: @escaping (ExposureDetection, BatchMatchJob.Outcome) -> Void) {
        guard let detection = loadDetection() else { return }
        if let phase { onPhase(phase) }
        let job = BatchMatchJob(files: files, detection: detection, loop: context.loop)
        matchJob = job
        job.start(keysPerSlice: settings.keysPerSlice) { [weak self] outcome in
            guard let self else { return }
            matchJob = nil
            guard !isOver else { return }
            report.matchTime += outcome.elapsed
            report.matchSlices += outcome.slices
            tally(detection)
            matched(detection, outcome)
        }
    }

    /// The run's detection over every stored sighting, built once per run; nil (and the run failed) when the
    /// store cannot be read.
    private func loadDetection() -> ExposureDetection? {
        if let detection { return detection }
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
        let matcher = sightings.isEmpty ? nil : KeyMatcher(sightings: sightings, now: now, schedule: context.schedule)
        // Keys under embargo are bounded as they stream in: a file of a million of them costs counters.
        let hold = EmbargoHold(usableBy: now + Self.longestEmbargo, capacity: SyncCursor.maxHeldKeys)
        let built = ExposureDetection(matcher: matcher, hold: hold)
        detection = built
        return built
    }

    /// Scores what the run has matched so far and records it; false (and the run failed) if the log cannot be
    /// written. The log keeps one record per key, so recording a match again changes nothing.
    private func record(_ detection: ExposureDetection) -> Bool {
        let found = detection.exposures(v1: settings.riskV1, v2: settings.riskV2, today: UTCDay(unixSeconds: now),
                                        detectedAt: now)
        let changes: ExposureLog.Changes
        do {
            changes = try context.exposures.apply(found: found, revoked: detection.revoked)
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

    /// The run's figures for what its detection has read so far.
    private func tally(_ detection: ExposureDetection) {
        report.keys = detection.keys
        report.matchedKeys = detection.matched.count
        report.revokedKeys = detection.revoked.count
    }

    /// Keeps the run's keys under embargo in the cursor, once, as it is written: a key of a file the cursor
    /// has not moved past yet is held too, and held once more when the file is read again. A key whose
    /// embargo ends more than a day after now was published before it was even valid: not held.
    private func holdEmbargoedKeys() {
        guard let detection else { return }
        let counts = detection.embargoCounts
        if counts.notValidYet > 0 {
            report.notValidYetKeys = counts.notValidYet
            log.warn("key sync: \(counts.notValidYet) key(s) not valid yet, ignored")
        }
        let before = cursor.heldKeys.count
        let dropped = counts.overCapacity + cursor.hold(detection.embargoed)
        report.heldKeys = cursor.heldKeys.count - before
        report.droppedHeldKeys = dropped
        if dropped > 0 {
            log.warn("key sync: \(dropped) key(s) under embargo not held: at most \(SyncCursor.maxHeldKeys) are")
        }
        if report.heldKeys > 0 {
            log.info("key sync: \(report.heldKeys) key(s) under embargo held for a later sync")
        }
    }

    /// An entry passed over for good: logged once, and the cursor moves past it.
    private func skip(_ entry: String, _ reason: String) {
        report.skipped += 1
        log.warn("key sync: skipping \(entry): \(reason)")
        report.refuse("\(entry): skipped, \(reason)")
        processed(entry)
    }

    /// A download that is not a valid export signed by the configured key: refused like a skipped entry.
    /// A file that cannot be read back (the disk) stops the run instead.
    private func refused(_ entry: String, path: String, _ error: ExportFileError, _ index: Int) {
        removeDownload(path)
        if case .read = error { return finish(.failed("\(entry): \(error)")) }
        report.rejected += 1
        log.warn("key sync: rejected \(entry): \(error)")
        report.refuse("\(entry): rejected, \(error)")
        processed(entry)
        process(index + 1)
    }

    /// Marks an entry done; the cursor moves once no batch is waiting for more files.
    private func processed(_ entry: String) {
        uncommitted.append(entry)
        if cursor.failing?.entry == entry { cursor.failing = nil }
        if collector.incomplete.isEmpty { commit() }
    }

    private func commit() {
        guard !uncommitted.isEmpty else { return }
        cursor.commit(uncommitted, indexed: isIndexed, listed: listedDays)
        uncommitted.removeAll()
    }

    /// The run's one write of the cursor.
    private func save() {
        holdEmbargoedKeys()
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
        }
        save()
        removeDownloads()
        report.outcome = outcome
        report.finishedAt = context.clock.unixSeconds
        onFinished(report, cursor)
    }

    private func removeDownload(_ path: String) {
        context.downloads.remove(path)
        onDisk.remove(path)
    }

    private func removeDownloads() {
        if let writing { close(writing.descriptor) }
        writing = nil
        for path in onDisk { context.downloads.remove(path) }
        onDisk.removeAll()
    }

    // MARK: Downloads

    /// A failure in words, naming the configuration key when a limit refused the transfer.
    private func explained(_ failure: HTTPClient.Failure, isListing: Bool) -> String {
        switch failure {
        case .tooLarge: "\(failure) (\(isListing ? "sync.max_index_bytes" : "sync.max_file_bytes"))"
        case .tooManyRedirects: "\(failure) (sync.max_redirects)"
        default: "\(failure)"
        }
    }

    private func request(_ url: String, maximumBytes: Int) -> HTTPClient.Request {
        var request = HTTPClient.Request(url: url, maximumBytes: maximumBytes, caFile: settings.caFile)
        request.timeout = limits.downloadTimeout
        request.minimumRate = limits.minimumRate
        request.minimumRateWindow = limits.minimumRateWindow
        request.maximumRedirects = limits.maxRedirects
        return request
    }

    /// Runs `attempt` (a GET), retrying what may recover with exponential backoff, up to the policy's attempts.
    /// The completion runs only while the run goes on (never after `cancel`).
    private func fetch<Value>(
        isListing: Bool, phase: KeySyncStatus.Phase, attempt: Int = 1,
        _ start: @escaping (@escaping (Result<Value, HTTPClient.Failure>) -> Void) -> HTTPClient.Transfer?,
        _ completion: @escaping (Fetched<Value>) -> Void
    ) {
        onPhase(phase)
        let started = context.loop.now
        transfer = start { [weak self] result in
            guard let self else { return }
            transfer = nil
            report.downloadTime += context.loop.now - started
            guard !isOver else { return }
            switch result {
            case .success(let value):
                completion(.value(value))
            case .failure(let failure):
                switch RetryPolicy.verdict(for: failure, isListing: isListing) {
                case .retry where attempt < settings.retry.attempts:
                    let delay = settings.retry.delay(afterAttempt: attempt, jitter: jitter())
                    report.retries += 1
                    log.info("key sync: \(failure); attempt \(attempt + 1) of \(settings.retry.attempts) in \(delay)")
                    onPhase(.retrying(attempt: attempt + 1, of: settings.retry.attempts))
                    retryTimer = context.loop.schedule(after: delay) { [weak self] in
                        guard let self else { return }
                        retryTimer = nil
                        report.downloadTime += delay
                        fetch(isListing: isListing, phase: phase, attempt: attempt + 1, start, completion)
                    }
                case .retry:
                    completion(.failed(failure, retriesUsedUp: true))
                case .stopRun:
                    completion(.failed(failure, retriesUsedUp: false))
                case .skipFile:
                    completion(.skip(failure))
                }
            }
        }
    }
}
