import AgentBase
import ENCore
import EventLoop
import HCI
import Indicators
import KeyDownload
import KeyShare
import Store
import SystemIO

/// The one interface through which the console reads and changes the badge: every console command, on the
/// serial line, stdin or `enbeacon ctl`, goes through here and nowhere else.
///
/// What it reads comes out as values (`BadgeStatus`, `ControllerReport`, keys, sightings, exposures); what
/// it changes goes through the agent's own methods, so a change from the console follows the same rules as
/// any other (a jump of the clock rotates at once, a configuration value is validated and persisted).
public final class AgentControl {
    private let agent: Agent
    private let stopAgent: () -> Void

    /// `stop`: ends the agent's run (the console's `quit`).
    public init(agent: Agent, stop: @escaping () -> Void) {
        self.agent = agent
        stopAgent = stop
    }

    // MARK: State

    public func status() -> BadgeStatus {
        let now = agent.loop.now
        func seconds(_ d: Duration) -> Int64 { d.components.seconds }
        let advertiser = agent.advertiser
        return BadgeStatus(
            clock: clock, exposureNotification: agent.exposureNotificationEnabled, broadcast: broadcastState,
            controller: agent.driver.phase,
            controllerProblem: agent.driver.lastProblem.map { ($0.text, seconds(now - $0.at)) },
            rotations: advertiser.rotations,
            rpiAgeSeconds: advertiser.lastRotation.map { seconds(now - $0) },
            nextRotationSeconds: advertiser.nextRotation.map { seconds($0 - now) },
            scans: agent.scanner.scans, lastScanSecondsAgo: agent.scanner.lastScanStart.map { seconds(now - $0) },
            storage: (try? agent.store.usage()).map(StorageUsage.init), storageError: agent.sightings.lastError,
            deletionHold: agent.clock.deletionHold, keySync: agent.keyDownload?.status,
            namedKeySyncs: namedKeySyncs, keyShare: agent.keyShare?.status, exposures: agent.exposures.exposures.count,
            riskVerdict: riskVerdict, indicator: indicator)
    }

    /// On air as the controller confirmed it, or why not.
    public var broadcastState: BroadcastState { agent.broadcastState }

    /// The state and counters a fleet's monitoring reads (`BadgeMetrics`).
    public func metrics() -> BadgeMetrics {
        let now = agent.loop.now
        let unixNow = agent.clock.unixSeconds
        var m = BadgeMetrics()
        m.exposureNotificationEnabled = agent.exposureNotificationEnabled
        m.broadcasting = agent.radio.isOnAir
        m.scanning = agent.scanner.lastScanStart.map { (now - $0).components.seconds < BadgeMetrics.scanningWindowSeconds } ?? false
        m.rotations = agent.advertiser.rotations
        m.scans = agent.scanner.scans
        m.gaenReports = agent.reportsHeard
        m.sightingsStored = agent.sightings.recorded
        m.sightingsDroppedOverScanLimit = agent.sightings.dropped.overScanLimit
        m.sightingsDroppedOverHourLimit = agent.sightings.dropped.overHourLimit
        if let usage = try? agent.store.usage() {
            m.storageUsedBytes = Int64(usage.bytes)
            m.oldestSightingAgeSeconds = usage.oldestSighting.map { max(0, unixNow - $0) }
        }
        m.storageAvailableBytes = FileSystemSpace.of(agent.dataDirectory)?.available
        m.storageWritable = agent.sightings.lastError == nil && agent.advertiser.keyStorageError == nil
        m.clockTrusted = agent.clock.isTrusted
        m.clockJumps = agent.clock.jumps
        m.lastClockJumpUnixSeconds = agent.clock.lastJumpUnixSeconds
        m.controllerReady = agent.driver.phase == .ready
        let counters = agent.driver.counters
        m.controllerInitializations = counters.initializations
        m.controllerHardwareErrors = counters.hardwareErrors
        m.controllerTransportFailures = counters.transportFailures
        m.controllerCommandTimeouts = counters.commandTimeouts
        m.controllerSilentSeconds = agent.driver.lastEventAt.map { (now - $0).components.seconds }
        m.keySync = agent.keyDownload?.status
        m.namedKeySyncs = namedKeySyncs
        m.keyShareState = agent.keyShare?.status.phase.rawValue
        m.indicatorState = agent.indicator.state.rawValue
        m.exposures = agent.exposures.exposures.count
        m.lastExposureDetectedUnixSeconds = agent.exposures.exposures.map { $0.detectedAt }.max()
        m.longestLoopTurn = agent.loop.longestTurn
        return m
    }

    /// Whether the badge is doing its job (`enbeacon ctl health`): the checks that fail, none when healthy.
    public func health() -> [HealthCheck.Failure] {
        HealthCheck.failures(of: metrics(), now: agent.clock.unixSeconds,
                             maximumSyncAge: Int64(agent.configuration.integer(.healthMaxSyncAgeHours)) * 3600)
    }

    // MARK: Indicator

    /// The LED, buzzer and button: what they show now, where they are, what could not be used.
    public var indicator: IndicatorReport {
        let service = agent.indicator
        let lines = service.lines
        return IndicatorReport(state: service.state, signal: service.isRunning ? service.signal : nil,
                               led: lines.led.map { IndicatorReport.Output(location: $0.location, isOn: service.levels.led) },
                               buzzer: lines.buzzer.map { IndicatorReport.Output(location: $0.location, isOn: service.levels.buzzer) },
                               button: lines.button?.location, problems: lines.problems,
                               exposuresToAcknowledge: agent.exposuresToAcknowledge.count)
    }

    /// `find`: blink and beep for a minute; false when the badge has no LED or buzzer.
    public func find() -> Bool { agent.indicator.find() }

    /// Ends a find (or a test) early; false if nothing was playing.
    public func stopFinding() -> Bool { agent.indicator.stopSignal() }

    /// `indicator test`: every pattern once; false when the badge has no LED or buzzer.
    public func testIndicator() -> Bool { agent.indicator.test() }

    /// Acknowledges the exposure signal, as a short press of the button does; returns how many exposures.
    public func acknowledgeExposureSignal() -> Int { agent.indicator.acknowledge() }

    /// Stops the agent (`quit`).
    public func stop() { stopAgent() }

    // MARK: Clock

    public var clock: ClockReading {
        ClockReading(unixSeconds: agent.clock.unixSeconds, trust: agent.clock.trust,
                     isNTPSynchronised: agent.clock.isNTPSynchronised)
    }

    /// Sets the system clock and trusts it. Refused while NTP keeps the clock: NTP would pull a hand-set clock
    /// back, so a typo could only do harm.
    public func setClock(unixSeconds: Int64) throws(ClockSetError) {
        guard !agent.clock.isNTPSynchronised else { throw .keptByNTP }
        do { try agent.clock.set(unixSeconds: unixSeconds) } catch { throw .system(error) }
    }

    public func trustClock() { agent.clock.trustByOperator() }

    // MARK: Radio

    public var exposureNotificationEnabled: Bool { agent.exposureNotificationEnabled }
    /// The controller confirmed that the badge's RPI is on air.
    public var isAdvertising: Bool { agent.radio.isOnAir }

    public func setExposureNotification(enabled: Bool) { agent.setExposureNotification(enabled: enabled) }

    public func controller() -> ControllerReport {
        ControllerReport(phase: agent.driver.phase, info: agent.driver.info, counters: agent.driver.counters)
    }

    public func resetController() { agent.driver.resetController() }

    /// Calls `watch` with every GAEN report heard, and its Unix time, until `stopWatching(token)`; the radio
    /// listens between scan windows meanwhile, so beacons show at once.
    public func watchBeacons(_ watch: @escaping (GAENReport, Int64) -> Void) -> Int {
        agent.watchBeacons(listens: true, watch)
    }

    public func stopWatching(_ token: Int) { agent.stopWatching(token) }

    /// Runs `action` once after `delay` on the agent's loop (a console command that measures for a while);
    /// the returned closure cancels it.
    public func after(_ delay: Duration, _ action: @escaping () -> Void) -> () -> Void {
        let loop = agent.loop
        let timer = loop.schedule(after: delay, action)
        return { loop.cancel(timer) }
    }

    /// Calls `watch` with every batch of sightings the recorder keeps (the demo's narration), in place of the
    /// one before.
    public func watchSightingsRecorded(_ watch: @escaping ([Sighting]) -> Void) { agent.sightings.onSightings = watch }

    /// Advertising reports heard that were not GAEN's (the stop summary).
    public var otherReportsHeard: Int { agent.radio.otherReports }

    // MARK: Keys and records

    /// Own temporary exposure keys of the last 14 days, oldest first.
    public var ownKeys: [TemporaryExposureKey] { agent.advertiser.keys }

    /// Deletes every TEK, sighting and exposure; a fresh key goes on air if the radio runs.
    public func wipe() throws(SystemError) { try agent.wipe() }

    /// Stored sightings first seen at or after `unixSeconds`, newest first.
    public func sightings(since unixSeconds: Int64, limit: Int) throws(SystemError) -> [Sighting] {
        try agent.store.newestFirst(since: unixSeconds, limit: limit)
    }

    public func storage() throws(SystemError) -> StorageUsage { StorageUsage(try agent.store.usage()) }

    /// The last failed write of sightings (nil once one succeeds), and what the flood limits dropped.
    public var storageHealth: (lastError: SystemError?, dropped: SightingRecorder.Dropped) {
        (agent.sightings.lastError, agent.sightings.dropped)
    }

    public var exposures: [Exposure] { agent.exposures.exposures }

    /// What the configured risk model (`risk.model`) makes of the exposures: the one that decides what is notified.
    public var riskVerdict: ExposureVerdict { agent.notifier.verdict(on: agent.exposures) }

    /// The exposures as risk v2 daily summaries, with the configured v2 weights.
    public func dailySummaries() -> [DailySummary] {
        ExposureScoring.dailySummaries(of: agent.exposures.exposures, v2: agent.keySyncSettings.riskV2)
    }

    // MARK: Key download

    /// The default key server's; nil on a badge without a key download.
    public var keySync: KeySyncStatus? { agent.keyDownload?.status }

    /// Each named key server's (`keyserver.<name>.*`), by name.
    public var namedKeySyncs: [KeySyncStatus] { agent.keyServers?.statuses.dropFirst().map { $0 } ?? [] }

    /// A run now on every configured key server; `finished` gets their reports once all have ended.
    /// `.notConfigured` on a badge without a key download.
    public func syncNow(finished: @escaping ([(name: String?, report: SyncReport)]) -> Void) -> SyncRequest {
        guard let keyServers = agent.keyServers else { return .notConfigured }
        return keyServers.syncNow(finished: finished)
    }

    // MARK: Key share

    /// Nil on a badge without a network client.
    public var keyShare: KeyShareStatus? { agent.keyShare?.status }

    /// `keys share CODE` (after consent): the code goes to the verification server now; `answer` gets the share
    /// as it then stands or why the code was not accepted. Throws at once, with nothing sent, when the share
    /// cannot start (a `share.*` key missing, the clock untrusted, a share already under way, a bad date).
    public func shareKeys(code: String, testDate: UTCDay?, symptomOnset: UTCDay?,
                          answer: @escaping (Result<KeyShareStatus, KeyShareError>) -> Void) throws(KeyShareError) {
        guard let keyShare = agent.keyShare else { throw .noNetwork }
        try keyShare.share(code: code, testDate: testDate, symptomOnset: symptomOnset, answer: answer)
    }

    /// `keys share cancel` (after consent): the share under way ends, its verification discarded.
    public func cancelKeyShare() throws(KeyShareError) -> KeyShareStatus {
        guard let keyShare = agent.keyShare else { throw .noNetwork }
        return try keyShare.cancel()
    }

    // MARK: Configuration

    public var configuration: Configuration { agent.configuration }

    /// Validates, persists and applies one value; on any error nothing changes. `origin` is for the log
    /// ("set through enbeacon ctl with --yes").
    public func setConfiguration(_ name: String, to value: String, origin: String = "set on the console") throws(ConfigurationError) {
        try agent.setConfiguration(name, to: value, origin: origin)
    }
}

/// The clock as the console shows it.
public struct ClockReading: Equatable, Sendable {
    public var unixSeconds: Int64
    public var trust: Clock.Trust
    public var isNTPSynchronised: Bool
    public var isTrusted: Bool { trust.isTrusted }
}

/// Why `time set` did not set the clock.
public enum ClockSetError: Error, Equatable, CustomStringConvertible {
    case keptByNTP
    case system(WallClockError)

    public var description: String {
        switch self {
        case .keptByNTP: "the clock is NTP-synchronised; time set is for boards without NTP or RTC"
        case .system(let error): "\(error)"
        }
    }
}

/// The controller as `hci info` shows it.
public struct ControllerReport: Equatable, Sendable {
    public var phase: ControllerDriver.Phase
    public var info: ControllerInfo
    public var counters: DriverCounters
}

/// What a member of staff needs to know, in one screen (`status`).
public struct BadgeStatus: Sendable {
    public var clock: ClockReading
    public var exposureNotification: Bool
    public var broadcast: BroadcastState
    public var controller: ControllerDriver.Phase
    /// The controller's last problem (a lost link, a timeout, a hardware error) and how long ago it was.
    public var controllerProblem: (text: String, secondsAgo: Int64)?
    public var rotations: Int
    public var rpiAgeSeconds: Int64?
    public var nextRotationSeconds: Int64?
    public var scans: Int
    public var lastScanSecondsAgo: Int64?
    /// Nil when the store cannot be read.
    public var storage: StorageUsage?
    /// The last failed write of sightings, nil once one succeeds.
    public var storageError: SystemError?
    /// Why data older than 14 days is not being deleted now (a clock jump not yet confirmed), nil when it is.
    public var deletionHold: String?
    /// The default key server's; nil on a badge without a key download.
    public var keySync: KeySyncStatus?
    /// Each named key server's, by name.
    public var namedKeySyncs: [KeySyncStatus] = []
    /// Nil on a badge without a network client.
    public var keyShare: KeyShareStatus?
    public var exposures: Int
    /// Which risk model decided about them, and what.
    public var riskVerdict: ExposureVerdict
    public var indicator: IndicatorReport
}
