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
        public init() {}
    }

    public let loop: any EventLoop
    public let clock: Clock
    public let driver: ControllerDriver
    public let radio: GAENRadio
    public let advertiser: Advertiser
    public let scanner: ScanScheduler
    public let store: SightingStore
    private let lock: DataDirectoryLock
    private let settings: Settings
    private var flushTimer: TimerHandle?
    private let log: Logger
    private var started = false
    public private(set) var reportsHeard = 0
    /// Observes every GAEN report the radio hears (simulations, the console's `live`).
    public var onReport: (GAENReport) -> Void = { _ in }
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
        radio.onReport = { [weak self] report in self?.heard(report) }
        scanner.onScanFinished = { [weak self] start in self?.scanFinished(startedAt: start) }
        // The first broadcast waits for the controller (its advertising TX power goes into the metadata)
        // and for a trustworthy clock (an RPI of the wrong date is useless and a privacy leak).
        driver.onReady = { [weak self] in self?.startRadioServicesIfPossible() }
        clock.onTrusted = { [weak self] in self?.startRadioServicesIfPossible() }
        clock.onJump = { [weak self] jump in
            guard let self, self.advertiser.isRunning else { return }
            self.log.info("rotating at once after the clock jump")
            self.advertiser.rotate()
        }
    }

    private func startRadioServicesIfPossible() {
        guard !started, clock.isTrusted, driver.phase == .ready else { return }
        started = true
        advertiser.start()
        scanner.start()
    }

    public func start() {
        clock.start()
        driver.start()
        scheduleFlush()
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
    }

    private func scheduleFlush() {
        flushTimer = loop.schedule(after: settings.flushInterval) { [weak self] in
            guard let self else { return }
            self.flush()
            self.scheduleFlush()
        }
    }

    public func stop() {
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
        onReport(report)
        let unixSeconds = clock.unixSeconds - (loop.now - report.receivedAt).nanosecondsValue / 1_000_000_000
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

    public var description: String {
        switch self {
        case .dataDirectory(let text): text
        case .crypto(let text): text
        }
    }
}
