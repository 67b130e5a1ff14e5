import AgentBase
import EventLoop
import HCI

/// Runs a short passive scan at random intervals, as phones do (Google: 4 s every 210–300 s; here 210–290 s), so every
/// advertiser nearby is heard within five minutes while the radio mostly sleeps. Advertising continues
/// throughout.
///
/// While someone watches (`live` on the console) the radio also listens between the windows, so beacons show
/// up at once; only reports inside the windows become sightings, so what is stored does not depend on it.
final class ScanScheduler {
    package struct Settings: Sendable {
        package var scanDuration: Duration = .seconds(4)
        var periodMin: Duration = .seconds(210)
        /// 290 rather than Google's 300: the first report of a scan can come a few hundred milliseconds in,
        /// and a rotation may pause a scan, yet every nearby advertiser must be heard in every 5 minutes.
        var periodMax: Duration = .seconds(290)
        package init() {}
    }

    private let loop: any EventLoop
    private let radio: GAENRadio
    private let settings: Settings
    private var generator: ServiceRandom
    private var timer: TimerHandle?
    package private(set) var scans = 0
    private(set) var lastScanStart: MonotonicInstant?
    /// Inside one of the scheduled scan windows: what is heard now is recorded.
    private(set) var isInScanWindow = false
    /// Listen between the windows too (while the scheduler runs); nothing heard then is recorded.
    var listensBetweenScans = false {
        didSet { updateRadio() }
    }
    private var running = false
    /// Called when a scan window closes, with its start time.
    var onScanFinished: (MonotonicInstant) -> Void = { _ in }

    init(loop: any EventLoop, radio: GAENRadio, settings: Settings = Settings(),
                generator: ServiceRandom = .system) {
        self.loop = loop
        self.radio = radio
        self.settings = settings
        self.generator = generator
    }

    /// The first scan starts at once: a newcomer sees beacons without waiting minutes.
    package func start() {
        running = true
        beginScan()
    }

    package func stop() {
        if let timer { loop.cancel(timer) }
        timer = nil
        running = false
        isInScanWindow = false
        updateRadio()
    }

    private func updateRadio() {
        radio.scanning = running && (isInScanWindow || listensBetweenScans)
    }

    private func beginScan() {
        let start = loop.now
        lastScanStart = start
        scans += 1
        isInScanWindow = true
        updateRadio()
        timer = loop.schedule(after: settings.scanDuration) { self.endScan(startedAt: start) }
    }

    private func endScan(startedAt start: MonotonicInstant) {
        isInScanWindow = false
        updateRadio()
        onScanFinished(start)
        let span = settings.periodMax - settings.periodMin
        let jitter = span.nanosecondsValue > 0 ? Int64.random(in: 0..<span.nanosecondsValue, using: &generator) : 0
        let next = start + settings.periodMin + .nanoseconds(jitter)
        timer = loop.schedule(at: next) { self.beginScan() }
    }
}
