import AgentBase
import ENCore
import EventLoop
import Network
import Store

/// Downloads diagnosis keys periodically (every `sync.interval_hours`, plus a few minutes of jitter) and on
/// demand (`syncNow`, the console's `sync now`), and turns them into exposures: see `SyncRun` for one pass.
///
/// Runs only with a trusted clock (the agent starts it once the clock is trusted): matching needs today's
/// date for the embargo and the 14-day window. Without a configured key server it logs that once and stays
/// idle. Everything happens on the loop; downloads go through `HTTPClient` into temporary files in the data
/// directory, verification and matching through slices.
package final class KeySync {
    package private(set) var settings: KeySyncSettings
    package private(set) var status = KeySyncStatus()
    /// Called after every run that was not cancelled, with its report.
    package var onRunFinished: (SyncReport) -> Void = { _ in }
    package var isRunning: Bool { run != nil }
    /// The server's name (`keyserver.<name>.*`), nil for the default server.
    package var name: String? { settings.name }

    private let context: SyncRun.Context
    private var generator: ServiceRandom
    private var cursor: SyncCursor?
    private var run: SyncRun?
    private var timer: TimerHandle?
    private var timerDeadline: MonotonicInstant?
    private var started = false
    /// Shared with the other servers' syncs, so that one runs at a time.
    private let turns: SyncTurns
    private let turnOwner: Int
    /// A run is due and waits for another server's to end.
    private var awaitingTurn = false
    /// Who asked `syncNow` to tell them how the run ended (the console's `sync now` waits for it).
    private var waiters: [(SyncReport) -> Void] = []

    package convenience init(loop: any EventLoop, http: any NetworkTransport, settings: KeySyncSettings, clock: Clock, store: SightingStore,
                exposures: ExposureLog, notifier: ExposureNotifier, schedule: KeySchedule, dataDirectory: String,
                generator: ServiceRandom = .system, log: Logger) {
        self.init(loop: loop, http: http, settings: settings, clock: clock, store: store, exposures: exposures,
                  notifier: notifier, schedule: schedule, dataDirectory: dataDirectory, turns: SyncTurns(),
                  removesStaleDownloads: true, generator: generator, log: log)
    }

    /// One of several servers' syncs (`KeyServers`): `turns` is shared with the others, and only the first
    /// made removes downloads left by an earlier run (one made later, by a configuration change, might take
    /// another server's download under way for one).
    init(loop: any EventLoop, http: any NetworkTransport, settings: KeySyncSettings, clock: Clock, store: SightingStore,
         exposures: ExposureLog, notifier: ExposureNotifier, schedule: KeySchedule, dataDirectory: String,
         turns: SyncTurns, removesStaleDownloads: Bool, generator: ServiceRandom, log: Logger) {
        self.settings = settings
        self.turns = turns
        turnOwner = turns.newOwner()
        self.generator = generator
        let downloads = DownloadFolder(directory: dataDirectory)
        context = SyncRun.Context(loop: loop, http: http, clock: clock, store: store, exposures: exposures,
                                  notifier: notifier, schedule: schedule, dataDirectory: dataDirectory,
                                  downloads: downloads, log: log)
        // Downloads a crash or a power cut left behind: their run is over, and they may be large.
        let stale = removesStaleDownloads ? downloads.removeStale() : 0
        if stale > 0 { log.info("key sync: removed \(stale) download(s) left by an earlier run") }
        loadCursor()
        refreshStatus()
    }

    /// Starts periodic syncing; the first run waits `startDelay`, or until `interval` after the last
    /// successful sync (kept across restarts) if that is later. Call once the clock is trusted.
    package func start() {
        guard !started else { return }
        started = true
        guard let server = settings.server else {
            context.log.info("key sync: no key server configured (keyserver.index_url, or keyserver.base_url with "
                             + "keyserver.style cwa or folder): not downloading diagnosis keys")
            refreshStatus()
            return
        }
        context.log.info("key sync: \(server), every \(settings.interval.humanReadable)")
        var delay = settings.startDelay
        if let last = cursor?.lastSuccess {
            let due = Duration.seconds(last - context.clock.unixSeconds) + settings.interval
            delay = min(max(delay, due), settings.interval)
        }
        scheduleNext(after: delay)
    }

    /// Cancels the run in progress and the next one.
    package func stop() {
        started = false
        if awaitingTurn {
            awaitingTurn = false
            turns.release(turnOwner)
            var report = SyncReport()
            report.outcome = .cancelled
            report.startedAt = context.clock.unixSeconds
            report.finishedAt = report.startedAt
            tellWaiters(report)
        }
        if let run {
            run.cancel()
            self.run = nil
            var report = run.report
            report.outcome = .cancelled
            report.finishedAt = context.clock.unixSeconds
            tellWaiters(report)
            turns.release(turnOwner)
        }
        cancelTimer()
        refreshStatus()
    }

    /// Starts a run now unless one is running; the periodic schedule restarts from its end. `finished`, if
    /// given, gets the report of the run that starts or (`.alreadyRunning`) the one under way, also when it
    /// is cancelled.
    @discardableResult
    package func syncNow(finished: ((SyncReport) -> Void)? = nil) -> SyncRequest {
        guard let server = settings.server else { return .notConfigured }
        guard context.clock.isTrusted else { return .clockNotTrusted }
        if let finished { waiters.append(finished) }
        guard run == nil && !awaitingTurn else { return .alreadyRunning }
        cancelTimer()
        begin(server)
        return .started
    }

    /// New settings (the console changed a key): a run in progress is cancelled, a cursor made for another
    /// server forgotten, and the schedule restarted.
    package func reconfigure(_ settings: KeySyncSettings) {
        let wasStarted = started
        stop()
        self.settings = settings
        loadCursor()
        refreshStatus()
        if wasStarted { start() }
    }

    // MARK: Runs

    /// Starts a run once no other server's runs.
    private func begin(_ server: KeyServer) {
        awaitingTurn = true
        status.phase = .waitingForTurn
        turns.request(turnOwner) {
            self.awaitingTurn = false
            self.beginNow(server)
        }
    }

    private func beginNow(_ server: KeyServer) {
        let run = SyncRun(server: server, settings: settings, cursor: cursor ?? SyncCursor(server: server.identity, fileName: cursorFileName),
                          context: context, jitter: { self.randomJitterFactor() })
        // The run holds this sync until it finishes or `stop` cancels it and lets it go.
        run.onPhase = { phase in
            self.status.phase = phase
            self.status.currentRun = self.run?.report
        }
        run.onFinished = { report, cursor in self.finished(report, cursor: cursor) }
        self.run = run
        status.lastError = nil
        refreshStatus()
        context.log.info("key sync: starting (\(server))")
        run.start()
    }

    private func finished(_ report: SyncReport, cursor: SyncCursor) {
        run = nil
        self.cursor = cursor
        status.lastRun = report
        status.totals.add(report)
        let seconds = report.finishedAt.map { $0 - report.startedAt } ?? 0
        switch report.outcome {
        case .failed(let reason):
            status.lastError = reason
            context.log.warn(.keySyncFailed, "key sync failed after \(seconds) s (\(report.summary)): \(reason); next try in about "
                             + "\(settings.interval.humanReadable)")
        default:
            status.lastError = nil
            context.log.info("key sync done in \(seconds) s: \(report.summary)")
        }
        if started { scheduleNext(after: settings.interval) }
        refreshStatus()
        onRunFinished(report)
        tellWaiters(report)
        turns.release(turnOwner)
    }

    private func tellWaiters(_ report: SyncReport) {
        let waiting = waiters
        waiters = []
        for waiter in waiting { waiter(report) }
    }

    private func scheduleNext(after delay: Duration) {
        cancelTimer()
        guard let server = settings.server else { return }
        let jitterNanoseconds = settings.jitter.components.seconds * 1_000_000_000
        let extra = jitterNanoseconds > 0 ? Int64.random(in: 0..<jitterNanoseconds, using: &generator) : 0
        let deadline = context.loop.now + delay + .nanoseconds(extra)
        timerDeadline = deadline
        timer = context.loop.schedule(at: deadline) { [self] in  // held by the loop until it fires or `stop` cancels it
            timer = nil
            timerDeadline = nil
            guard run == nil && !awaitingTurn else { return }
            guard context.clock.isTrusted else {
                context.log.warn("key sync: clock no longer trusted; trying again later")
                scheduleNext(after: settings.interval)
                return
            }
            begin(server)
        }
        refreshStatus()
    }

    private func cancelTimer() {
        if let timer { context.loop.cancel(timer) }
        timer = nil
        timerDeadline = nil
    }

    private var cursorFileName: String { SyncCursor.fileName(forServer: settings.name) }

    private func randomJitterFactor() -> Double { Double.random(in: 0.5..<1.5, using: &generator) }

    private func loadCursor() {
        cursor = settings.server.map {
            SyncCursor.load(dataDirectory: context.dataDirectory, fileName: cursorFileName, server: $0.identity)
        }
    }

    private func refreshStatus() {
        status.name = settings.name
        status.server = settings.server?.description
        status.lastSuccess = cursor?.lastSuccess
        status.currentRun = run?.report
        if let cursor {
            status.cursor = cursor.lastLine.map { "after \($0)" }
                ?? (cursor.processedDays.isEmpty ? "nothing processed yet" : "\(cursor.processedDays.count) day(s) processed")
        } else {
            status.cursor = ""
        }
        status.nextSync = timerDeadline.map { context.clock.unixSeconds + ($0 - context.loop.now).components.seconds }
        if settings.server == nil {
            status.phase = .notConfigured
        } else if awaitingTurn {
            status.phase = .waitingForTurn
        } else if run == nil {
            status.phase = started || context.clock.isTrusted ? .idle : .waitingForClock
        }
    }
}
