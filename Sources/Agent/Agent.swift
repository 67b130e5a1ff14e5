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
        public init() {}
    }

    public let loop: any EventLoop
    public let clock: Clock
    public let driver: ControllerDriver
    public let radio: GAENRadio
    public let advertiser: Advertiser
    public let scanner: ScanScheduler
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
                randomness: Randomness = .system, dataDirectory: String? = nil,
                clockProbe: any ClockSyncProbe = SystemClockSyncProbe(),
                makeTransport: @escaping () -> any HCITransport) throws(CryptoError) {
        self.loop = loop
        self.log = log
        clock = Clock(loop: loop, policy: settings.clockPolicy, probe: clockProbe, log: log)
        driver = ControllerDriver(loop: loop, settings: settings.driver, log: log, makeTransport: makeTransport)
        radio = GAENRadio(driver: driver)
        advertiser = Advertiser(loop: loop, clock: clock, radio: radio, schedule: try KeySchedule(), settings: settings.advertiser,
                                generator: randomness.generator(for: "advertiser"),
                                keyFile: dataDirectory.map(KeyFile.init(directory:)), log: log)
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
    }

    public func stop() {
        clock.stop()
        advertiser.stop()
        scanner.stop()
        driver.stop()
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
        let strongest = sightings.map(\.rssiMax).filter { $0 != 127 }.sorted(by: >).prefix(5).map { "\($0)" }
        log.info("scan heard \(sightings.count) GAEN beacon(s)"
                 + (strongest.isEmpty ? "" : ", strongest \(strongest.joined(separator: ", ")) dBm"))
        onSightings(sightings)
    }
}
