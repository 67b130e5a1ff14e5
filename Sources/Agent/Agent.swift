import AgentBase
import ENCore
import EventLoop
import HCI
import Indicators
import KeyDownload
import KeyShare
import Network
import Store
import SystemIO

/// The badge: its services wired on one loop, and the rules that tie them together — the radio starts once
/// the controller is ready and the clock trusted, a clock jump rotates at once, a configuration change reaches
/// every service it concerns. The same object runs on the real `PollLoop` with hardware and on a
/// `VirtualLoop` in whole-agent simulations.
///
/// Its services are internal: the console, the metrics, the demo and `RunCommand` reach the badge through
/// `AgentControl` only, and the composition root has what it needs here (`attach`, `start`, `stop`,
/// `quiesceRadio`). The key download, the key share and the indicators are modules of their own below this
/// one (`KeyDownload`, `KeyShare`, `Indicators`, on `AgentBase`'s clock, configuration and exposures); the
/// agent makes and wires them, the two network services from the one client the composition root hands it
/// (`attach(network:)`); libcurl stays in the `Network` module, loaded only while a transfer runs.
package final class Agent {
    package struct Settings: Sendable {
        var driver = DriverSettings()
        package var advertiser = Advertiser.Settings()
        var scanner = ScanScheduler.Settings()
        package var clockPolicy = ClockPolicy.ntp
        /// How often batched sightings are written and fsync'd: the most a power cut can lose.
        package var flushInterval: Duration = .seconds(60)
        package var store = SightingStore.Settings()
        /// The `key = value` configuration (`--config`, `--set`): key server, sync, risk, notification.
        package var configuration = Configuration()
        /// Where `setConfiguration` persists changes; nil: changes last for this run only.
        package var configurationFile: ConfigurationFile?
        /// What `status` says the badge runs (the caller knows its version and the image's boot facts).
        package var software = SoftwareIdentity(version: "unknown")
        package init() {}
    }

    let loop: any EventLoop
    let log: Logger
    let software: SoftwareIdentity
    /// When the agent was made, on the loop's monotonic clock: its uptime, whatever the wall clock did since.
    let startedAt: MonotonicInstant
    let dataDirectory: String
    let clock: Clock
    let driver: ControllerDriver
    let radio: GAENRadio
    let schedule: KeySchedule
    let advertiser: Advertiser
    let scanner: ScanScheduler
    let store: SightingStore
    let sightings: SightingRecorder
    /// Writes sightings every flush interval and deletes what is older than 14 days, as the clock permits.
    let housekeeping: Housekeeping
    /// Exposures found so far (`DATA/exposures`).
    let exposures: ExposureLog
    /// Logs and runs `notify.command` for the exposures the risk model (`risk.model`) finds notifiable.
    let notifier: ExposureNotifier
    /// The LED, buzzer and button: patterns for the badge's state, the exposure signal, find and test.
    /// Inert until lines are attached (`attach(indicators:)`).
    let indicator: IndicatorService
    /// Downloads diagnosis keys from every configured key server and matches them; nil until attached (a
    /// badge without a key download).
    private(set) var keyServers: KeyServers?
    /// The default key server's download (`keyserver.*`).
    var keyDownload: KeySync? { keyServers?.defaultServer }
    /// Shares the wearer's keys through the health authority (`keys share`); nil until a network client is
    /// attached.
    private(set) var keyShare: KeyShare?
    /// The configuration in force (`config list`, `config get`).
    package private(set) var configuration: Configuration
    /// The key-download settings resolved from `configuration` (server, public key, risk configuration): the
    /// default server's.
    var keySyncSettings: KeySyncSettings { keyServerSettings[0] }
    /// The default server's settings, then each named server's.
    private(set) var keyServerSettings: [KeySyncSettings]
    /// Whether Exposure Notification is on (`en on` / `en off`); off keeps every stored datum.
    package private(set) var exposureNotificationEnabled = true
    private(set) var reportsHeard = 0
    /// Told of every configuration put in force (`config set`, SIGHUP), for services wired beside the agent
    /// (the metrics textfile).
    package var onConfigurationApplied: (Configuration) -> Void = { _ in }

    let watchers = BeaconWatchers()
    private let fileSystem: any FileSystem
    private let randomness: Randomness
    private let lock: DataDirectoryLock
    private let configurationFile: ConfigurationFile?
    private var radioServicesRunning = false
    /// What the services call back through; `stop` cuts it, so a cut link is a stopped agent.
    private let link: AgentLink

    package init(loop: any EventLoop, settings: Settings = Settings(), log: Logger,
                randomness: Randomness = .system, dataDirectory: String,
                fileSystem: any FileSystem = PosixFileSystem(),
                clockProbe: any ClockSyncProbe = SystemClockSyncProbe(),
                makeTransport: @escaping () -> any HCITransport) throws(AgentError) {
        self.loop = loop
        self.log = log
        startedAt = loop.now
        self.dataDirectory = dataDirectory
        self.fileSystem = fileSystem
        self.randomness = randomness
        configuration = settings.configuration
        configurationFile = settings.configurationFile
        software = settings.software
        let riskModel: RiskModel
        do {
            keyServerSettings = try KeySyncSettings.all(configuration: settings.configuration)
            riskModel = try RiskModel(configuration: settings.configuration)
        } catch {
            throw .configuration(error)
        }
        do { try AtomicFile.makeDirectory(dataDirectory) } catch { throw .dataDirectory(error) }
        do { lock = try DataDirectoryLock(directory: dataDirectory) } catch { throw .locked(error) }
        do {
            store = try SightingStore(dataDirectory: dataDirectory, settings: settings.store, fileSystem: fileSystem)
        } catch {
            throw .dataDirectory(error)
        }
        if !store.recovery.isClean { log.warn(.storeRecovered, "sighting store recovered: \(store.recovery)") }
        // A write cut short (a power cut, a full card) leaves its temporary file behind; nothing reads them.
        for leftover in AtomicFile.removeTemporaries(in: dataDirectory) { log.info("removed \(leftover), left by an interrupted write") }
        do { schedule = try KeySchedule() } catch { throw .crypto(error) }
        clock = Clock(loop: loop, policy: settings.clockPolicy, probe: clockProbe, log: log)
        driver = ControllerDriver(loop: loop, settings: settings.driver, log: log, makeTransport: makeTransport)
        radio = GAENRadio(driver: driver)
        advertiser = Advertiser(loop: loop, clock: clock, radio: radio, schedule: schedule, settings: settings.advertiser,
                                generator: randomness.generator(for: "advertiser"),
                                keyFile: KeyFile(directory: dataDirectory, fileSystem: fileSystem), log: log)
        scanner = ScanScheduler(loop: loop, radio: radio, settings: settings.scanner,
                                generator: randomness.generator(for: "scanner"))
        clock.maximumJump = .seconds(60 * settings.configuration.integer(.clockMaximumJumpMinutes))
        sightings = SightingRecorder(store: store, limits: SightingRecorder.Limits(configuration: settings.configuration),
                                     log: log)
        exposures = ExposureLog(dataDirectory: dataDirectory, log: log)
        housekeeping = Housekeeping(loop: loop, clock: clock, sightings: sightings, store: store, exposures: exposures,
                                    advertiser: advertiser, interval: settings.flushInterval, log: log)
        notifier = ExposureNotifier(loop: loop, settings: ExposureNotifier.Settings(configuration: settings.configuration,
                                                                                   model: riskModel), log: log)

        let link = AgentLink()
        self.link = link
        indicator = IndicatorService(
            loop: loop, log: log,
            inputs: { link.agent?.indicatorInputs ?? IndicatorInputs(broadcast: .waitingForController) },
            acknowledge: { link.agent?.acknowledgeExposureSignal() ?? 0 })
        notifier.onNotified = { _ in link.agent?.indicator.refresh() }

        radio.onReport = { report in link.agent?.heard(report) }
        scanner.onScanFinished = { start in link.agent?.sightings.scanFinished(startedAt: start) }
        watchers.onListeningNeedChanged = { listens in link.agent?.scanner.listensBetweenScans = listens }
        // The first broadcast waits for the controller (its advertising TX power goes into the metadata)
        // and for a trustworthy clock (an RPI of the wrong date is useless and a privacy leak).
        driver.onReady = {
            link.agent?.startRadioServicesIfPossible()
            link.agent?.indicator.refresh()
        }
        clock.onTrusted = {
            guard let agent = link.agent else { return }
            agent.startRadioServicesIfPossible()
            agent.keyServers?.start()
            agent.keyShare?.clockChanged()
            agent.indicator.refresh()
        }
        clock.onJump = { _ in
            guard let agent = link.agent else { return }
            agent.keyShare?.clockChanged()
            guard agent.advertiser.isRunning else { return }
            agent.log.info("rotating at once after the clock jump")
            agent.advertiser.rotate()
        }
        link.connect(self)
    }

    /// Makes the network services (before `start`) on `http`, the one transport both use (`HTTPClient`, the one
    /// libcurl client, or a test's substitute): the key download, which starts with the agent once the clock is
    /// trusted, and the key share.
    package func attach(network http: any NetworkTransport) {
        keyServers = KeyServers(loop: loop, http: http, settings: keyServerSettings, clock: clock, store: store,
                                exposures: exposures, notifier: notifier, schedule: schedule, dataDirectory: dataDirectory,
                                generator: { [randomness] name in randomness.generator(for: "keysync" + (name.map { "." + $0 } ?? "")) },
                                log: log)
        attach(healthAuthority: http)
    }

    /// Makes the key share on `transport` (before `start`): `attach(network:)` passes its client, a test a
    /// server that answers as it is told. The share resumes what `DATA/share` holds when the agent starts.
    package func attach(healthAuthority transport: any NetworkTransport) {
        keyShare = KeyShare(loop: loop, clock: clock, ownKeys: { [advertiser] in advertiser.keys }, transport: transport,
                            settings: KeyShareSettings(configuration: configuration), notifier: notifier,
                            fileSystem: fileSystem, dataDirectory: dataDirectory,
                            generator: randomness.generator(for: "keyshare"), log: log)
        keyShare?.onOutcome = { [link] outcome in
            if let succeeded = outcome.keysReachedServer { link.agent?.indicator.keyShareFinished(succeeded: succeeded) }
        }
    }

    /// Attaches the indicator's lines (before `start`); they are held until `stop`.
    package func attach(indicators: IndicatorLines) {
        indicator.attach(indicators)
    }

    package func start() {
        clock.start()
        radio.start()
        housekeeping.start()
        // Key download needs the date (embargo, 14-day window), not the radio.
        if clock.isTrusted { keyServers?.start() }
        keyShare?.start()
        indicator.start()
    }

    /// Stops every service, gives the data directory back, and cuts the services' link to the agent, which
    /// lets the agent go. An agent does not start again; a second `stop` does nothing.
    package func stop() {
        guard link.agent != nil else { return }
        indicator.stop()
        keyServers?.stop()
        keyShare?.stop()
        clock.stop()
        advertiser.stop()
        scanner.stop()
        radio.stop()
        housekeeping.stop()
        lock.release()
        link.cut()
    }

    /// Writes batched sightings now, and deletes what is older than 14 days if the clock permits.
    package func flush() { housekeeping.run() }

    /// Deletes every TEK, sighting and exposure (the console's `wipe`, after consent), and a key share under way
    /// with what an earlier one left: they are about the keys deleted.
    package func wipe() throws(SystemError) {
        try keyShare?.removeAll()
        try advertiser.removeAllKeys()
        sightings.discardScan()
        try store.removeAll()
        try exposures.removeAll()
        log.info("wiped: keys, sightings and exposures deleted")
        indicator.refresh()
    }

    package func setExposureNotification(enabled: Bool) {
        guard enabled != exposureNotificationEnabled else { return }
        exposureNotificationEnabled = enabled
        if enabled {
            startRadioServicesIfPossible()
        } else {
            advertiser.stop()
            scanner.stop()
            radioServicesRunning = false
            log.info("Exposure Notification off: not advertising or scanning")
        }
        indicator.refresh()
    }

    /// Calls `watch` with every GAEN report heard and its Unix time until `stopWatching(token)`.
    /// `listens`: the radio also listens between scan windows meanwhile (`live`).
    package func watchBeacons(listens: Bool = false, _ watch: @escaping (GAENReport, Int64) -> Void) -> Int {
        watchers.add(listens: listens, watch)
    }

    package func stopWatching(_ token: Int) { watchers.remove(token) }

    // MARK: Configuration

    /// `config set`: checks the key and value, resolves what depends on them (the public key and risk
    /// files must be readable), writes the config file back if there is one, and applies the change at once.
    /// On any error nothing changes. A `--set` override of the key is dropped: the operator just chose.
    /// `origin` says in the log who changed it.
    package func setConfiguration(_ name: String, to value: String, origin: String = "set on the console") throws(ConfigurationError) {
        var candidate = configuration
        try candidate.set(name, to: value)
        candidate.removeOverride(name)
        let keySync = try KeySyncSettings.all(configuration: candidate)
        let riskModel = try RiskModel(configuration: candidate)
        if let configurationFile {
            candidate = try configurationFile.write(name, value, into: candidate)
            candidate.removeOverride(name)
        }
        let keySyncPrefixes = ["keyserver.", "sync.", "risk.config", "match.", "radio.rssi_correction"]
        apply(candidate, keySync: keySync, riskModel: riskModel,
              reconfigureKeyDownload: keySyncPrefixes.contains { name.hasPrefix($0) })
        if let key = ConfigurationKey.named(name) { logChange(of: key, how: origin) }
    }

    /// A change of value, at warn for a privileged key so that it stands out in the log. A command's value is
    /// not logged: it may hold a token.
    private func logChange(of key: ConfigurationKey, how: String) {
        let value = key.valueIsLoggable ? " = \(configuration[key])" : " changed (the value is not logged)"
        guard let privilege = key.privilege else { return log.info("config: \(key.name)\(value)") }
        log.warn("config: \(key.name)\(value), \(how); privileged: \(privilege)")
    }

    /// SIGHUP: reads the config file again (the `--set` overrides of this run stay in force), and the files it
    /// names (public key, risk configuration), and applies it. A file that no longer parses, or names a file
    /// that cannot be read, changes nothing: the error says why, and the agent goes on with the configuration
    /// it had. Returns the keys whose values changed.
    @discardableResult
    package func reloadConfiguration() throws(ConfigurationError) -> [String] {
        guard let configurationFile else { return [] }
        var candidate = try configurationFile.load()
        candidate.keepBoardValues(of: configuration)
        for (name, value) in configuration.overrides.sorted(by: { $0.key < $1.key }) {
            try candidate.override("\(name)=\(value)")
        }
        let keySync = try KeySyncSettings.all(configuration: candidate)
        let riskModel = try RiskModel(configuration: candidate)
        // A named key server's keys count too, also those the file no longer has. A key server's limit that
        // follows its `sync.*` key in both changed only with that key, which is named.
        let keys = candidate.keys
        let changed = (keys + configuration.keys.filter { !keys.contains($0) }).filter {
            candidate[$0] != configuration[$0] && (candidate.source(of: $0) != .fallback || configuration.source(of: $0) != .fallback)
        }
        // The key download restarts even when no value changed: the files named may have (a new public key).
        apply(candidate, keySync: keySync, riskModel: riskModel, reconfigureKeyDownload: true)
        for key in changed where key.privilege != nil { logChange(of: key, how: "reloaded from the file") }
        return changed.map { $0.name }
    }

    private func apply(_ candidate: Configuration, keySync: [KeySyncSettings], riskModel: RiskModel,
                       reconfigureKeyDownload: Bool) {
        configuration = candidate
        defer { onConfigurationApplied(candidate) }
        keyServerSettings = keySync
        clock.maximumJump = .seconds(60 * candidate.integer(.clockMaximumJumpMinutes))
        let limits = SightingRecorder.Limits(configuration: candidate)
        if limits != sightings.limits { sightings.limits = limits }
        notifier.settings = ExposureNotifier.Settings(configuration: candidate, model: riskModel)
        // A lower threshold (or another model) covers exposures already recorded: notify them now, not at the next new one.
        notifier.notifyPending(in: exposures)
        if reconfigureKeyDownload { keyServers?.reconfigure(keySync) }
        keyShare?.reconfigure(KeyShareSettings(configuration: candidate))
        // A new threshold may start or end the exposure signal.
        indicator.refresh()
    }

    // MARK: State

    /// On air as the controller confirmed it, or why not.
    var broadcastState: BroadcastState {
        if !exposureNotificationEnabled { return .switchedOff }
        if radio.isOnAir { return .onAir }
        if !clock.isTrusted { return .waitingForTrustedClock }
        if let error = advertiser.keyStorageError { return .keyNotStored(error) }
        if driver.phase != .ready { return .waitingForController(driver.phase) }
        return .notYetConfirmed
    }

    /// Exposures the risk model finds notifiable whose signal nobody has acknowledged.
    package var exposuresToAcknowledge: [Exposure] {
        let notifiable = notifier.verdict(on: exposures).notifiable
        return exposures.exposures.filter { notifiable.contains($0.id) && !exposures.acknowledgedIDs.contains($0.id) }
    }

    var indicatorInputs: IndicatorInputs {
        let phase = driver.phase
        return IndicatorInputs(broadcast: broadcastState.indicatorBroadcast,
                               controllerFault: phase != .ready && phase != .stopped && driver.lastProblem != nil,
                               storageFault: sightings.lastError != nil,
                               exposuresToAcknowledge: exposuresToAcknowledge.count,
                               exposuresRecorded: !exposures.exposures.isEmpty)
    }

    /// Acknowledges the exposure signal: every exposure it stands for is marked, and stays recorded. If the
    /// mark cannot be written the signal still stops for this run (it comes back after a restart), and the
    /// log says so. Returns how many were acknowledged.
    func acknowledgeExposureSignal() -> Int {
        let ids = Set(exposuresToAcknowledge.map { $0.id })
        guard !ids.isEmpty else { return 0 }
        do { try exposures.acknowledge(ids) } catch {
            log.error("exposures: cannot record the acknowledgement (the signal returns after a restart): \(error)")
            exposures.acknowledgeForThisRun(ids)
        }
        return ids.count
    }

    // MARK: Radio

    private func startRadioServicesIfPossible() {
        guard !radioServicesRunning, exposureNotificationEnabled, clock.isTrusted, driver.phase == .ready else { return }
        radioServicesRunning = true
        advertiser.start()
        scanner.start()
    }

    /// The first half of a clean stop: advertising and scanning off, and `done` once the controller has
    /// confirmed both (true) or `timeout` has passed (false). `stop()` then releases the adapter.
    package func quiesceRadio(within timeout: Duration, _ done: @escaping (Bool) -> Void) {
        advertiser.stop()
        scanner.stop()
        driver.whenGoalReached(within: timeout, done)
    }

    private func heard(_ report: GAENReport) {
        reportsHeard += 1
        let unixSeconds = clock.unixSeconds - (loop.now - report.receivedAt).nanosecondsValue / 1_000_000_000
        watchers.tell(report, at: unixSeconds)
        // Between scan windows the radio listens only for `live`; sightings come from the windows alone.
        guard scanner.isInScanWindow else { return }
        // No log line names the RPI or the address, at any level: `live` shows reports to staff who ask.
        sightings.add(report, at: unixSeconds)
    }
}
