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
package final class AgentControl {
    private let agent: Agent
    private let stopAgent: () -> Void

    /// `stop`: ends the agent's run (the console's `quit`).
    package init(agent: Agent, stop: @escaping () -> Void) {
        self.agent = agent
        stopAgent = stop
    }

    // MARK: State

    package func status() -> BadgeStatus {
        let now = agent.loop.now
        func seconds(_ d: Duration) -> Int64 { d.components.seconds }
        let advertiser = agent.advertiser
        return BadgeStatus(
            label: agent.configuration[.badgeLabel], clock: clock, exposureNotification: agent.exposureNotificationEnabled, broadcast: broadcastState,
            controller: agent.driver.phase,
            controllerProblem: agent.driver.lastProblem.map { ($0.text, seconds(now - $0.at)) },
            rotations: advertiser.rotations,
            rpiAgeSeconds: advertiser.lastRotation.map { seconds(now - $0) },
            nextRotationSeconds: advertiser.nextRotation.map { seconds($0 - now) },
            scans: agent.scanner.scans, lastScanSecondsAgo: agent.scanner.lastScanStart.map { seconds(now - $0) },
            storage: (try? agent.store.usage()).map(StorageUsage.init), storageError: agent.sightings.lastError,
            deletionHold: agent.clock.deletionHold, keySync: agent.keyDownload?.status,
            namedKeySyncs: namedKeySyncs, keyShare: agent.keyShare?.status, exposures: agent.exposures.exposures.count,
            riskVerdict: riskVerdict, indicator: indicator, software: agent.software)
    }

    /// On air as the controller confirmed it, or why not.
    var broadcastState: BroadcastState { agent.broadcastState }

    /// The state and counters a fleet's monitoring reads (`BadgeMetrics`).
    package func metrics() -> BadgeMetrics {
        let now = agent.loop.now
        let unixNow = agent.clock.unixSeconds
        var m = BadgeMetrics()
        m.label = agent.configuration[.badgeLabel]
        m.startedUnixSeconds = unixNow - (now - agent.startedAt).components.seconds
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
        let unacknowledged = agent.exposuresToAcknowledge
        m.exposuresToAcknowledge = unacknowledged.count
        m.firstUnacknowledgedExposureUnixSeconds = unacknowledged.map { $0.detectedAt }.min()
        m.maximumSyncAgeSeconds = Int64(agent.configuration.integer(.healthMaxSyncAgeHours)) * 3600
        m.longestLoopTurn = agent.loop.longestTurn
        return m
    }

    /// Whether the badge is doing its job (`enbeacon ctl health`): the checks that fail, none when healthy.
    package func health() -> [HealthCheck.Failure] {
        let m = metrics()
        return HealthCheck.failures(of: m, now: agent.clock.unixSeconds, maximumSyncAge: m.maximumSyncAgeSeconds)
    }

    // MARK: Indicator

    /// The LED, buzzer and button: what they show now, where they are, what could not be used.
    package var indicator: IndicatorReport {
        let service = agent.indicator
        let lines = service.lines
        return IndicatorReport(state: service.state, signal: service.isRunning ? service.signal : nil,
                               led: lines.led.map { IndicatorReport.Output(location: $0.location, isOn: service.levels.led) },
                               buzzer: lines.buzzer.map { IndicatorReport.Output(location: $0.location, isOn: service.levels.buzzer) },
                               button: lines.button?.location, problems: lines.problems,
                               exposuresToAcknowledge: agent.exposuresToAcknowledge.count)
    }

    /// `find`: blink and beep for a minute; false when the badge has no LED or buzzer.
    package func find() -> Bool { agent.indicator.find() }

    /// Ends a find (or a test) early; false if nothing was playing.
    package func stopFinding() -> Bool { agent.indicator.stopSignal() }

    /// `indicator test`: every pattern once; false when the badge has no LED or buzzer.
    package func testIndicator() -> Bool { agent.indicator.test() }

    /// Acknowledges the exposure signal, as a short press of the button does; returns how many exposures.
    package func acknowledgeExposureSignal() -> Int { agent.indicator.acknowledge() }

    /// Stops the agent (`quit`).
    package func stop() { stopAgent() }

    // MARK: Clock

    package var clock: ClockReading {
        ClockReading(unixSeconds: agent.clock.unixSeconds, trust: agent.clock.trust,
                     isNTPSynchronised: agent.clock.isNTPSynchronised)
    }

    /// Sets the system clock and trusts it. Refused while NTP keeps the clock: NTP would pull a hand-set clock
    /// back, so a typo could only do harm.
    package func setClock(unixSeconds: Int64) throws(ClockSetError) {
        guard !agent.clock.isNTPSynchronised else { throw .keptByNTP }
        do { try agent.clock.set(unixSeconds: unixSeconds) } catch { throw .system(error) }
    }

    package func trustClock() { agent.clock.trustByOperator() }

    // MARK: Radio

    package var exposureNotificationEnabled: Bool { agent.exposureNotificationEnabled }
    /// The controller confirmed that the badge's RPI is on air.
    package var isAdvertising: Bool { agent.radio.isOnAir }

    package func setExposureNotification(enabled: Bool) { agent.setExposureNotification(enabled: enabled) }

    package func controller() -> ControllerReport {
        ControllerReport(phase: agent.driver.phase, info: agent.driver.info, counters: agent.driver.counters)
    }

    package func resetController() { agent.driver.resetController() }

    /// Calls `watch` with every GAEN report heard, and its Unix time, until `stopWatching(token)`; the radio
    /// listens between scan windows meanwhile, so beacons show at once.
    package func watchBeacons(_ watch: @escaping (GAENReport, Int64) -> Void) -> Int {
        agent.watchBeacons(listens: true, watch)
    }

    package func stopWatching(_ token: Int) { agent.stopWatching(token) }

    /// Runs `action` once after `delay` on the agent's loop (a console command that measures for a while);
    /// the returned closure cancels it.
    package func after(_ delay: Duration, _ action: @escaping () -> Void) -> () -> Void {
        let loop = agent.loop
        let timer = loop.schedule(after: delay, action)
        return { loop.cancel(timer) }
    }

    /// Calls `watch` with every batch of sightings the recorder keeps (the demo's narration), in place of the
    /// one before.
    package func watchSightingsRecorded(_ watch: @escaping ([Sighting]) -> Void) { agent.sightings.onSightings = watch }

    /// Advertising reports heard that were not GAEN's (the stop summary).
    package var otherReportsHeard: Int { agent.radio.otherReports }

    // MARK: Keys and records

    /// Own temporary exposure keys of the last 14 days, oldest first.
    package var ownKeys: [TemporaryExposureKey] { agent.advertiser.keys }

    /// Deletes every TEK, sighting and exposure; a fresh key goes on air if the radio runs.
    package func wipe() throws(SystemError) { try agent.wipe() }

    /// Stored sightings first seen at or after `unixSeconds`, newest first.
    package func sightings(since unixSeconds: Int64, limit: Int) throws(SystemError) -> [Sighting] {
        try agent.store.newestFirst(since: unixSeconds, limit: limit)
    }

    package func storage() throws(SystemError) -> StorageUsage { StorageUsage(try agent.store.usage()) }

    /// The last failed write of sightings (nil once one succeeds), and what the flood limits dropped.
    package var storageHealth: (lastError: SystemError?, dropped: SightingRecorder.Dropped) {
        (agent.sightings.lastError, agent.sightings.dropped)
    }

    package var exposures: [Exposure] { agent.exposures.exposures }

    /// What the configured risk model (`risk.model`) makes of the exposures: the one that decides what is notified.
    package var riskVerdict: ExposureVerdict { agent.notifier.verdict(on: agent.exposures) }

    /// The exposures as risk v2 daily summaries, with the configured v2 weights.
    package func dailySummaries() -> [DailySummary] {
        ExposureScoring.dailySummaries(of: agent.exposures.exposures, v2: agent.keySyncSettings.riskV2)
    }

    // MARK: Key download

    /// The default key server's; nil on a badge without a key download.
    package var keySync: KeySyncStatus? { agent.keyDownload?.status }

    /// Each named key server's (`keyserver.<name>.*`), by name.
    package var namedKeySyncs: [KeySyncStatus] { agent.keyServers?.statuses.dropFirst().map { $0 } ?? [] }

    /// A run now on every configured key server; `finished` gets their reports once all have ended.
    /// `.notConfigured` on a badge without a key download.
    package func syncNow(finished: @escaping ([(name: String?, report: SyncReport)]) -> Void) -> SyncRequest {
        guard let keyServers = agent.keyServers else { return .notConfigured }
        return keyServers.syncNow(finished: finished)
    }

    // MARK: Key share

    /// Nil on a badge without a network client.
    package var keyShare: KeyShareStatus? { agent.keyShare?.status }

    /// `keys share CODE` (after consent): the code goes to the verification server now; `answer` gets the share
    /// as it then stands or why the code was not accepted. Throws at once, with nothing sent, when the share
    /// cannot start (a `share.*` key missing, the clock untrusted, a share already under way, a bad date).
    package func shareKeys(code: String, testDate: UTCDay?, symptomOnset: UTCDay?,
                          answer: @escaping (Result<KeyShareStatus, KeyShareError>) -> Void) throws(KeyShareError) {
        guard let keyShare = agent.keyShare else { throw .noNetwork }
        try keyShare.share(code: code, testDate: testDate, symptomOnset: symptomOnset, answer: answer)
    }

    /// `keys share cancel` (after consent): the share under way ends, its verification discarded.
    package func cancelKeyShare() throws(KeyShareError) -> KeyShareStatus {
        guard let keyShare = agent.keyShare else { throw .noNetwork }
        return try keyShare.cancel()
    }

    // MARK: Configuration

    package var configuration: Configuration { agent.configuration }

    /// Validates, persists and applies one value; on any error nothing changes. `origin` is for the log
    /// ("set through enbeacon ctl with --yes").
    package func setConfiguration(_ name: String, to value: String, origin: String = "set on the console") throws(ConfigurationError) {
        try agent.setConfiguration(name, to: value, origin: origin)
    }
}

/// The clock as the console shows it.
package struct ClockReading: Equatable, Sendable {
    package var unixSeconds: Int64
    package var trust: Clock.Trust
    var isNTPSynchronised: Bool
    package var isTrusted: Bool { trust.isTrusted }
}

/// Why `time set` did not set the clock.
package enum ClockSetError: Error, Equatable, CustomStringConvertible {
    case keptByNTP
    case system(WallClockError)

    package var description: String {
        switch self {
        case .keptByNTP: "the clock is NTP-synchronised; time set is for boards without NTP or RTC"
        case .system(let error): "\(error)"
        }
    }
}

/// The controller as `hci info` shows it.
package struct ControllerReport: Equatable, Sendable {
    package var phase: ControllerDriver.Phase
    package var info: ControllerInfo
    package var counters: DriverCounters
}

/// What a member of staff needs to know, in one screen (`status`).
package struct BadgeStatus: Sendable {
    /// What staff call this badge (`badge.label`); empty when not set.
    package var label: String
    package var clock: ClockReading
    package var exposureNotification: Bool
    package var broadcast: BroadcastState
    package var controller: ControllerDriver.Phase
    /// The controller's last problem (a lost link, a timeout, a hardware error) and how long ago it was.
    package var controllerProblem: (text: String, secondsAgo: Int64)?
    package var rotations: Int
    package var rpiAgeSeconds: Int64?
    package var nextRotationSeconds: Int64?
    package var scans: Int
    package var lastScanSecondsAgo: Int64?
    /// Nil when the store cannot be read.
    package var storage: StorageUsage?
    /// The last failed write of sightings, nil once one succeeds.
    package var storageError: SystemError?
    /// Why data older than 14 days is not being deleted now (a clock jump not yet confirmed), nil when it is.
    package var deletionHold: String?
    /// The default key server's; nil on a badge without a key download.
    package var keySync: KeySyncStatus?
    /// Each named key server's, by name.
    package var namedKeySyncs: [KeySyncStatus] = []
    /// Nil on a badge without a network client.
    package var keyShare: KeyShareStatus?
    package var exposures: Int
    /// Which risk model decided about them, and what.
    package var riskVerdict: ExposureVerdict
    package var indicator: IndicatorReport
    /// The agent's version, and on the badge image its version, slot and any rollback.
    package var software: SoftwareIdentity
}
