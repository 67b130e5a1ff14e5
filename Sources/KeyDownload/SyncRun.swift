import AgentBase
import ENCore
import EventLoop
import Network
import Store
import SystemIO

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
///
/// Those rules are `SyncMachine`'s, a value with no I/O; this class is its driver: it feeds the machine events
/// (a transfer, a verification or a match job ended) and performs the actions it answers with, through
/// the `NetworkTransport` (`HTTPClient`, or a test's substitute), the loop, the download folder,
/// `VerificationJob`, `BatchMatchJob` and the exposure log. A transfer, timer or job under way holds the run
/// until it reports or `cancel` ends it (no weak references: the board build has none).
final class SyncRun {
    /// What a run works with; owned by `KeySync`.
    struct Context {
        let loop: any EventLoop
        let http: any NetworkTransport
        let clock: Clock
        let store: SightingStore
        let exposures: ExposureLog
        let notifier: ExposureNotifier
        let schedule: KeySchedule
        let dataDirectory: String
        let downloads: DownloadFolder
        let log: Logger
    }

    /// A verified download waiting for the rest of its batch.
    struct Held {
        let export: VerifiedExportFile
        let source: ExportFileSource
        let entry: String
    }

    private typealias Action = SyncMachine<Held>.Action

    /// The most a published key can still be under embargo: one that became valid just now, for a day, and
    /// the two hours after (SPEC §4).
    static let longestEmbargo = (Int64(ENIntervalNumber.intervalsPerDay) + 12) * ENIntervalNumber.secondsPerInterval

    var server: KeyServer { machine.server }
    var report: SyncReport { machine.report }
    /// Told of every phase change.
    var onPhase: (KeySyncStatus.Phase) -> Void = { _ in }
    /// Called once, unless the run is cancelled.
    var onFinished: (SyncReport, SyncCursor) -> Void = { _, _ in }

    /// Every rule of the run; this class only performs what it asks and tells it what came of it.
    private var machine: SyncMachine<Held>
    private let settings: KeySyncSettings
    private let context: Context
    private let jitter: () -> Double

    /// Drops the transfer under way, if there is one.
    private var cancelTransfer: (() -> Void)?
    private var retryTimer: TimerHandle?
    private var verification: VerificationJob?
    private var matchJob: BatchMatchJob?
    /// The current entry's download, from its creation until it is removed or verified (then its `Held` has
    /// it); the descriptor while it is open for writing, across retries.
    private var current: (path: String, descriptor: Int32?)?
    /// Downloads on disk: removed once matched or refused, and the rest when the run ends.
    private var onDisk: Set<String> = []
    /// Built from the stored sightings when the first match needs it.
    private var detection: ExposureDetection?
    /// Unix seconds when the run started: the day matching and scoring count from.
    private var now: Int64 = 0

    private var log: Logger { context.log }

    init(server: KeyServer, settings: KeySyncSettings, cursor: SyncCursor, context: Context, jitter: @escaping () -> Double) {
        machine = SyncMachine(server: server, cursor: cursor, limits: settings.limits, retry: settings.retry)
        self.settings = settings
        self.context = context
        self.jitter = jitter
    }

    func start() {
        // Old exposures are the agent's housekeeping, which deletes only while the clock permits it.
        now = context.clock.unixSeconds
        perform(machine.start(now: now))
    }

    /// Stops at once: no callback. What was processed is kept in the cursor, written now.
    func cancel() {
        guard !machine.isOver else { return }
        cancelTransfer?()
        if let retryTimer { context.loop.cancel(retryTimer) }
        verification?.cancel()
        matchJob?.cancel()
        perform(machine.cancel())
    }

    // MARK: Actions

    /// Performs `actions` in order. One the driver answers on the spot (it failed, or it needs no wait) puts
    /// the machine's answer next in line: a loop, so a long run of skipped entries never nests calls.
    private func perform(_ actions: [Action]) { ActionQueue.perform(actions, execute) }

    /// Performs one action; the machine's answer when the action's outcome is known at once.
    private func execute(_ action: Action) -> [Action] {
        switch action {
        case .phase(let phase):
            onPhase(phase)
        case .log(let level, let line):
            log.log(level, line)
        case .matchHeldKeys(let keys):
            return match([BatchMatchJob.File(keys: .held(keys), name: "keys held until their embargo ended")])
        case .fetchListing(let url, let cap):
            let started = context.loop.now
            cancelTransfer = context.http.fetch(request(url, maximumBytes: cap)) { [self] result in
                guard let elapsed = transferEnded(started) else { return }
                switch result {
                case .success(let body): perform(machine.listingFetched(body, elapsed: elapsed))
                case .failure(let failure): perform(machine.fetchFailed(failure, elapsed: elapsed, jitter: jitter()))
                }
            }
        case .download(let entry, let url, let cap, let attempt):
            return download(entry, url: url, maximumBytes: cap, attempt: attempt)
        case .scheduleRetry(let delay):
            retryTimer = context.loop.schedule(after: delay) { [self] in
                retryTimer = nil
                perform(machine.retryTimerFired())
            }
        case .verify(let entry):
            return verify(entry)
        case .matchBatch(let files):
            return match(files.map { BatchMatchJob.File(keys: .export($0.export), name: $0.entry) })
        case .discard(let files):
            for file in files {
                file.source.close()
                removeDownload(file.source.path)
            }
        case .removeDownload:
            if let current { removeDownload(current.path) }
        case .recordExposures:
            return record()
        case .end:
            let embargo = detection.map { SyncMachine<Held>.Embargo(counts: $0.embargoCounts, keys: $0.embargoed) }
            return machine.close(embargo: embargo, now: context.clock.unixSeconds)
        case .saveCursor(let cursor):
            do { try cursor.save(dataDirectory: context.dataDirectory) } catch {
                // Not fatal: the next run repeats some downloads, and exposures are not duplicated.
                log.error(.keySyncCursorUnsaved, "key sync: cannot save the cursor: \(error)")
            }
        case .removeAllDownloads:
            closeWriter()
            current = nil
            for path in onDisk { context.downloads.remove(path) }
            onDisk.removeAll()
        case .finished(let report, let cursor):
            onFinished(report, cursor)
        }
        return []
    }

    /// A transfer's time, unless the run ended meanwhile (then its outcome matters no more).
    private func transferEnded(_ started: MonotonicInstant) -> Duration? {
        cancelTransfer = nil
        return machine.isOver ? nil : context.loop.now - started
    }

    private func download(_ entry: String, url: String, maximumBytes: Int, attempt: Int) -> [Action] {
        if attempt == 1 || current == nil {
            do {
                let file = try context.downloads.create()
                current = (file.path, file.descriptor)
                onDisk.insert(file.path)
            } catch {
                return machine.stopped("cannot store a download in \(context.dataDirectory): \(error)")
            }
        }
        guard let path = current?.path, let descriptor = current?.descriptor else {
            return machine.stopped("\(entry): no file to download to")
        }
        // Each attempt starts from an empty file.
        try? Posix.truncate(descriptor, to: 0)
        let started = context.loop.now
        cancelTransfer = context.http.fetch(request(url, maximumBytes: maximumBytes), into: descriptor, path: path) {
            [self] result in
            guard let elapsed = transferEnded(started) else { return }
            switch result {
            case .success(let bytes):
                closeWriter()
                // Checking and matching take a while; libcurl (~5 MB resident) comes back for the next download.
                context.http.unloadIfIdle()
                perform(machine.downloaded(bytes: bytes, elapsed: elapsed))
            case .failure(let failure):
                // The file stays open for a retry; the machine has it removed otherwise.
                perform(machine.fetchFailed(failure, elapsed: elapsed, jitter: jitter()))
            }
        }
        return []
    }

    private func verify(_ entry: String) -> [Action] {
        guard let path = current?.path else { return machine.stopped("\(entry): the download is gone") }
        let started = context.loop.now
        let source: ExportFileSource
        let job: VerificationJob
        do throws(TextFileError) { source = try ExportFileSource(path: path) } catch {
            return machine.stopped("cannot read the download of \(entry): \(error)")
        }
        do throws(ExportFileError) {
            let file = try ExportFile(source: source, maxExportBinSize: settings.limits.maxFileBytes)
            job = VerificationJob(try file.verification(with: settings.keyring), loop: context.loop)
        } catch {
            return machine.refused(error, elapsed: context.loop.now - started)
        }
        verification = job
        job.start { [self] result, _ in
            verification = nil
            let elapsed = context.loop.now - started
            guard !machine.isOver else { return }
            source.close()
            switch result {
            case .failure(let error):
                perform(machine.refused(error, elapsed: elapsed))
            case .success(let verified):
                // The file is the batch's now: removed with it, or when the run ends.
                current = nil
                perform(machine.verified(Held(export: verified, source: source, entry: entry), at: verified.batch,
                                         elapsed: elapsed))
            }
        }
        return []
    }

    /// Feeds `files` to the run's detection in loop slices, then gives the machine the figures.
    private func match(_ files: [BatchMatchJob.File]) -> [Action] {
        let detection: ExposureDetection
        switch loadDetection() {
        case .success(let loaded): detection = loaded
        case .failure(let error): return machine.stopped("cannot read the sightings: \(error)")
        }
        let job = BatchMatchJob(files: files, detection: detection, loop: context.loop)
        matchJob = job
        job.start(keysPerSlice: settings.keysPerSlice) { [self] outcome in
            matchJob = nil
            guard !machine.isOver else { return }
            perform(machine.matched(.init(keys: detection.keys, matchedKeys: detection.matched.count,
                                          revokedKeys: detection.revoked.count, corruptFiles: outcome.corruptFiles,
                                          slices: outcome.slices, elapsed: outcome.elapsed)))
        }
        return []
    }

    /// The run's detection over every stored sighting, built once per run.
    private func loadDetection() -> Result<ExposureDetection, SystemError> {
        if let detection { return .success(detection) }
        var sightings: [Sighting] = []
        do {
            try context.store.forEach { sighting in
                sightings.append(sighting)
                return .proceed
            }
        } catch {
            return .failure(error)
        }
        var rules = MatchingRules()
        rules.rssiCorrection = settings.rssiCorrection
        let matcher = sightings.isEmpty ? nil : KeyMatcher(sightings: sightings, now: now, rules: rules, schedule: context.schedule)
        // Keys under embargo are bounded as they stream in: a file of a million of them costs counters.
        let hold = EmbargoHold(usableBy: now + Self.longestEmbargo, capacity: SyncCursor.maxHeldKeys)
        let built = ExposureDetection(matcher: matcher, hold: hold)
        detection = built
        return .success(built)
    }

    /// Scores what the run has matched so far and records it. The log keeps one record per key, so recording a
    /// match again changes nothing.
    private func record() -> [Action] {
        guard let detection else { return machine.recorded(newExposures: 0) }
        let found = detection.exposures(v1: settings.riskV1, v2: settings.riskV2, today: UTCDay(unixSeconds: now),
                                        detectedAt: now)
        let changes: ExposureLog.Changes
        do {
            changes = try context.exposures.apply(found: found, revoked: detection.revoked)
        } catch {
            return machine.stopped("cannot record exposures: \(error)")
        }
        if changes.revoked > 0 { log.info("exposures: removed \(changes.revoked) whose key was revoked") }
        let verdict = context.notifier.verdict(on: context.exposures)
        for exposure in changes.added {
            if let line = verdict.quietLine(for: exposure) { log.info(line) }
        }
        context.notifier.notifyPending(in: context.exposures)
        return machine.recorded(newExposures: changes.added.count)
    }

    private func closeWriter() {
        if let descriptor = current?.descriptor {
            DescriptorIO.close(descriptor)
            current?.descriptor = nil
        }
    }

    private func removeDownload(_ path: String) {
        if current?.path == path {
            closeWriter()
            current = nil
        }
        context.downloads.remove(path)
        onDisk.remove(path)
    }

    private func request(_ url: String, maximumBytes: Int) -> HTTPClient.Request {
        var request = HTTPClient.Request(url: url, maximumBytes: maximumBytes, caFile: settings.caFile)
        request.timeout = settings.limits.downloadTimeout
        request.minimumRate = settings.limits.minimumRate
        request.minimumRateWindow = settings.limits.minimumRateWindow
        request.maximumRedirects = settings.limits.maxRedirects
        return request
    }
}
