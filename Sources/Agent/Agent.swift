import ENCore
import Store
import EventLoop
import HCI

/// The badge: the services of one agent wired on one loop. The same object runs on the real `PollLoop`
/// with hardware and on a `VirtualLoop` in whole-agent simulations.
public final class Agent {
    public struct Settings: Sendable {
        public var driver = DriverSettings()
        public var advertiser = Advertiser.Settings()
        public var scanner = ScanScheduler.Settings()
        public var clockPolicy = ClockPolicy.ntp
        /// How often batched sightings are written and fsync'd: the most a power cut can lose.
        public var flushInterval: Duration = .seconds(60)
        public var store = SightingStore.Settings()
        /// The `key = value` configuration (`--config`, `--set`): key server, sync, risk, notification.
        public var configuration = Configuration()
        /// Where `setConfiguration` persists changes; nil: changes last for this run only.
        public var configurationFile: ConfigurationFile?
        public init() {}
    }

    public let loop: any EventLoop
    public let clock: Clock
    public let driver: ControllerDriver
    public let radio: GAENRadio
    public let advertiser: Advertiser
    public let scanner: ScanScheduler
    public let store: SightingStore
    /// Exposures found so far (`DATA/exposures`).
    public let exposures: ExposureLog
    /// Logs and runs `notify.command` for exposures at or above `risk.threshold`.
    public let notifier: ExposureNotifier
    /// Downloads diagnosis keys and matches them; started once the clock is trusted.
    public let keySync: KeySync
    /// The configuration in force (`config list`, `config get`).
    public private(set) var configuration: Configuration
    private let lock: DataDirectoryLock
    private let settings: Settings
    private var flushTimer: TimerHandle?
    private let log: Logger
    private var started = false
    public private(set) var reportsHeard = 0
    /// Observers of every GAEN report the radio hears (the console's `live`, simulations), in the order
    /// they were added, so that simulations stay deterministic.
    private var reportObservers: [(token: Int, listen: Bool, observe: (GAENReport, Int64) -> Void)] = []
    private var nextObserver = 0

    /// Calls `observer` with every GAEN report and its Unix time until `removeReportObserver(token)`.
    /// `listen`: the radio also listens between scan windows while this observer is registered (`live`).
    public func addReportObserver(listen: Bool = false, _ observer: @escaping (GAENReport, Int64) -> Void) -> Int {
        nextObserver += 1
        reportObservers.append((nextObserver, listen, observer))
        scanner.listensBetweenScans = reportObservers.contains { $0.listen }
        return nextObserver
    }

    public func removeReportObserver(_ token: Int) {
        reportObservers.removeAll { $0.token == token }
        scanner.listensBetweenScans = reportObservers.contains { $0.listen }
    }
    /// Observes the sightings of each finished scan.
    public var onSightings: ([Sighting]) -> Void = { _ in }
    public private(set) var sightingsRecorded = 0
    private var aggregator = ScanAggregator()
    private var previousScanStart: MonotonicInstant?

    public init(loop: any EventLoop, settings: Settings = Settings(), log: Logger,
                randomness: Randomness = .system, dataDirectory: String,
                clockProbe: any ClockSyncProbe = SystemClockSyncProbe(),
                makeTransport: @escaping () -> any HCITransport) throws(AgentError) {
        self.loop = loop
        self.log = log
        self.settings = settings
        configuration = settings.configuration
        let keySyncSettings: KeySyncSettings
        do { keySyncSettings = try KeySyncSettings(configuration: settings.configuration) } catch {
            throw .configuration("\(error)")
        }
        do {
            try AtomicFile.makeDirectory(dataDirectory)
            lock = try DataDirectoryLock(directory: dataDirectory)
            store = try SightingStore(dataDirectory: dataDirectory, settings: settings.store)
        } catch let error as DataDirectoryLockError {
            throw .dataDirectory("\(error)")
        } catch {
            throw .dataDirectory("\(error)")
        }
        if !store.recovery.isClean { log.warn("sighting store recovered: \(store.recovery)") }
        clock = Clock(loop: loop, policy: settings.clockPolicy, probe: clockProbe, log: log)
        driver = ControllerDriver(loop: loop, settings: settings.driver, log: log, makeTransport: makeTransport)
        radio = GAENRadio(driver: driver)
        let schedule: KeySchedule
        do { schedule = try KeySchedule() } catch { throw .crypto("\(error)") }
        advertiser = Advertiser(loop: loop, clock: clock, radio: radio, schedule: schedule, settings: settings.advertiser,
                                generator: randomness.generator(for: "advertiser"),
                                keyFile: KeyFile(directory: dataDirectory), log: log)
        scanner = ScanScheduler(loop: loop, radio: radio, settings: settings.scanner,
                                generator: randomness.generator(for: "scanner"))
        exposures = ExposureLog(dataDirectory: dataDirectory, log: log)
        notifier = ExposureNotifier(loop: loop, settings: ExposureNotifier.Settings(configuration: settings.configuration),
                                    log: log)
        let http: HTTPClient
        do { http = try HTTPClient(loop: loop) } catch { throw .keySync("\(error)") }
        keySync = KeySync(loop: loop, http: http, settings: keySyncSettings, clock: clock, store: store,
                          exposures: exposures, notifier: notifier, schedule: schedule, dataDirectory: dataDirectory,
                          generator: randomness.generator(for: "keysync"), log: log)
        radio.onReport = { [weak self] report in self?.heard(report) }
        scanner.onScanFinished = { [weak self] start in self?.scanFinished(startedAt: start) }
        // The first broadcast waits for the controller (its advertising TX power goes into the metadata)
        // and for a trustworthy clock (an RPI of the wrong date is useless and a privacy leak).
        driver.onReady = { [weak self] in self?.startRadioServicesIfPossible() }
        clock.onTrusted = { [weak self] in
            self?.startRadioServicesIfPossible()
            self?.keySync.start()
        }
        clock.onJump = { [weak self] jump in
            guard let self, self.advertiser.isRunning else { return }
            self.log.info("rotating at once after the clock jump")
            self.advertiser.rotate()
        }
    }

    /// Deletes every TEK, sighting and exposure (the console's `wipe`, after consent).
    public func wipe() throws(FileError) {
        try advertiser.removeAllKeys()
        aggregator = ScanAggregator()
        try store.removeAll()
        try exposures.removeAll()
        log.info("wiped: keys, sightings and exposures deleted")
    }

    /// Whether Exposure Notification is on (`en on` / `en off`); off keeps every stored datum.
    public private(set) var exposureNotificationEnabled = true

    public func setExposureNotification(enabled: Bool) {
        guard enabled != exposureNotificationEnabled else { return }
        exposureNotificationEnabled = enabled
        if enabled {
            startRadioServicesIfPossible()
        } else {
            advertiser.stop()
            scanner.stop()
            started = false
            log.info("Exposure Notification off: not advertising or scanning")
        }
    }

    private func startRadioServicesIfPossible() {
        guard !started, exposureNotificationEnabled, clock.isTrusted, driver.phase == .ready else { return }
        started = true
        advertiser.start()
        scanner.start()
    }

    public func start() {
        clock.start()
        driver.start()
        scheduleFlush()
        // Key sync needs the date (embargo, 14-day window), not the radio.
        if clock.isTrusted { keySync.start() }
    }

    /// `config set`: checks the key and value, resolves what depends on them (the public key and risk
    /// files must be readable), writes the config file back if there is one, and applies the change at once.
    /// On any error nothing changes. A `--set` override of the key is dropped: the operator just chose.
    public func setConfiguration(_ name: String, to value: String) throws(ConfigurationError) {
        var candidate = configuration
        try candidate.set(name, to: value)
        candidate.removeOverride(name)
        let keySyncSettings = try KeySyncSettings(configuration: candidate)
        if let file = settings.configurationFile {
            candidate = try file.write(name, value, into: candidate)
            candidate.removeOverride(name)
        }
        let keySyncPrefixes = ["keyserver.", "sync.", "risk.config", "match."]
        apply(candidate, keySyncSettings: keySyncSettings, reconfigureKeySync: keySyncPrefixes.contains { name.hasPrefix($0) })
        log.info("config: \(name) = \(configuration.value(of: name) ?? "")")
    }

    /// SIGHUP: reads the config file again (the `--set` overrides of this run stay in force), and the files it
    /// names (public key, risk configuration), and applies it. A file that no longer parses, or names a file
    /// that cannot be read, changes nothing: the error says why, and the agent goes on with the configuration
    /// it had. Returns the keys whose values changed.
    @discardableResult
    public func reloadConfiguration() throws(ConfigurationError) -> [String] {
        guard let file = settings.configurationFile else { return [] }
        var candidate = try file.load()
        for (name, value) in configuration.overrides.sorted(by: { $0.key < $1.key }) {
            try candidate.override("\(name)=\(value)")
        }
        let keySyncSettings = try KeySyncSettings(configuration: candidate)
        let changed = ConfigurationKey.all.filter { candidate[$0] != configuration[$0] }.map(\.name)
        // Key sync restarts even when no value changed: the files named may have (a new public key).
        apply(candidate, keySyncSettings: keySyncSettings, reconfigureKeySync: true)
        return changed
    }

    private func apply(_ candidate: Configuration, keySyncSettings: KeySyncSettings, reconfigureKeySync: Bool) {
        configuration = candidate
        notifier.settings = ExposureNotifier.Settings(configuration: candidate)
        // A lower threshold covers exposures already recorded: notify them now, not at the next new one.
        notifier.notifyPending(in: exposures)
        if reconfigureKeySync { keySync.reconfigure(keySyncSettings) }
    }

    /// Writes batched sightings to disk (and, with a trusted clock, deletes what is older than 14 days).
    /// Called every flush interval and on stop; a failure keeps the batch for the next attempt.
    public func flush() {
        do {
            if clock.isTrusted { try store.prune(now: clock.unixSeconds) }
            try store.flush()
        } catch {
            log.error("cannot write sightings (kept in memory for the next attempt): \(error)")
        }
        guard clock.isTrusted else { return }
        do {
            let removed = try exposures.prune(today: UTCDay(unixSeconds: clock.unixSeconds))
            if removed > 0 { log.info("exposures: removed \(removed) older than 14 days") }
        } catch {
            log.error("cannot remove old exposures: \(error)")
        }
    }

    private func scheduleFlush() {
        flushTimer = loop.schedule(after: settings.flushInterval) { [weak self] in
            guard let self else { return }
            self.flush()
            self.scheduleFlush()
        }
    }

    /// The first half of a clean stop: advertising and scanning off, and `done` once the controller has
    /// confirmed both (true) or `timeout` has passed (false). `stop()` then releases the adapter.
    public func quiesceRadio(within timeout: Duration, _ done: @escaping (Bool) -> Void) {
        advertiser.stop()
        scanner.stop()
        driver.whenGoalReached(within: timeout, done)
    }

    public func stop() {
        keySync.stop()
        clock.stop()
        advertiser.stop()
        scanner.stop()
        driver.stop()
        if let flushTimer { loop.cancel(flushTimer) }
        flushTimer = nil
        flush()
        lock.release()
    }

    private func heard(_ report: GAENReport) {
        reportsHeard += 1
        let unixSeconds = clock.unixSeconds - (loop.now - report.receivedAt).nanosecondsValue / 1_000_000_000
        for observer in reportObservers { observer.observe(report, unixSeconds) }
        // Between scan windows the radio listens only for `live`; sightings come from the windows alone.
        guard scanner.isInScanWindow else { return }
        aggregator.add(rpi: report.payload.rpi, aem: report.payload.aem, rssi: report.rssi, at: unixSeconds)
        log.debug("sighting rpi \(report.payload.rpi.hex) aem \(report.payload.aem.hex) "
                  + "rssi \(report.rssi.map(String.init) ?? "n/a") address \(report.address)")
    }

    private func scanFinished(startedAt start: MonotonicInstant) {
        // v2 risk scoring wants the gap since the previous scan; 0 = unknown (the first scan of a run).
        let gap = previousScanStart.map { min((start - $0).nanosecondsValue / 1_000_000_000, Int64(UInt16.max)) } ?? 0
        previousScanStart = start
        let sightings = aggregator.finish(secondsSincePreviousScan: UInt16(gap))
        guard !sightings.isEmpty else { return }
        sightingsRecorded += sightings.count
        sightings.forEach(store.append)
        let strongest = sightings.map(\.rssiMax).filter { $0 != 127 }.sorted(by: >).prefix(5).map { "\($0)" }
        log.info("scan heard \(sightings.count) GAEN beacon(s)"
                 + (strongest.isEmpty ? "" : ", strongest \(strongest.joined(separator: ", ")) dBm"))
        onSightings(sightings)
    }
}

public enum AgentError: Error, CustomStringConvertible {
    case dataDirectory(String)
    case crypto(String)
    /// A configured file (public key, risk configuration) is missing or wrong.
    case configuration(String)
    case keySync(String)

    public var description: String {
        switch self {
        case .dataDirectory(let text): text
        case .crypto(let text): text
        case .configuration(let text): text
        case .keySync(let text): text
        }
    }
}
