import ENCore
import EventLoop
import HCI
import Store

/// Turns what the radio hears during scan windows into sightings and keeps them: one `Sighting` per RPI
/// and scan (`ScanAggregator`), batched in the store and written with one fsync per flush interval.
///
/// The flush interval is the most a power cut can lose. Deleting what is older than 14 days happens with
/// the flush, and only while the clock is trusted: an untrusted clock cannot say what is old.
public final class SightingRecorder {
    private let loop: any EventLoop
    private let clock: Clock
    private let store: SightingStore
    private let flushInterval: Duration
    private let log: Logger
    private var aggregator = ScanAggregator()
    private var previousScanStart: MonotonicInstant?
    private var flushTimer: TimerHandle?
    /// Sightings made since the agent started.
    public private(set) var recorded = 0
    /// Observes the sightings of each finished scan (simulations, tests).
    public var onSightings: ([Sighting]) -> Void = { _ in }
    /// Called after every flush attempt: nil when it succeeded, the error otherwise.
    public var onFlush: (Error?) -> Void = { _ in }

    init(loop: any EventLoop, clock: Clock, store: SightingStore, flushInterval: Duration, log: Logger) {
        self.loop = loop
        self.clock = clock
        self.store = store
        self.flushInterval = flushInterval
        self.log = log
    }

    func start() { scheduleFlush() }

    /// Stops the flush timer and writes what is waiting.
    func stop() {
        if let flushTimer { loop.cancel(flushTimer) }
        flushTimer = nil
        flush()
    }

    /// One GAEN report heard inside a scan window, at Unix time `unixSeconds`.
    func add(_ report: GAENReport, at unixSeconds: Int64) {
        aggregator.add(rpi: report.payload.rpi, aem: report.payload.aem, rssi: report.rssi, at: unixSeconds)
    }

    /// The scan window that began at `start` has closed: its sightings go to the store's batch.
    func scanFinished(startedAt start: MonotonicInstant) {
        // v2 risk scoring wants the gap since the previous scan; 0 = unknown (the first scan of a run).
        let gap = previousScanStart.map { min((start - $0).nanosecondsValue / 1_000_000_000, Int64(UInt16.max)) } ?? 0
        previousScanStart = start
        let sightings = aggregator.finish(secondsSincePreviousScan: UInt16(gap))
        guard !sightings.isEmpty else { return }
        recorded += sightings.count
        sightings.forEach(store.append)
        let strongest = sightings.map(\.rssiMax).filter { $0 != 127 }.sorted(by: >).prefix(5).map { "\($0)" }
        log.info("scan heard \(sightings.count) GAEN beacon(s)"
                 + (strongest.isEmpty ? "" : ", strongest \(strongest.joined(separator: ", ")) dBm"))
        onSightings(sightings)
    }

    /// Forgets the scan in progress (the console's `wipe`).
    func discardScan() { aggregator = ScanAggregator() }

    /// Writes batched sightings (and, with a trusted clock, deletes what is older than 14 days). A failure
    /// keeps the batch in memory for the next attempt.
    public func flush() {
        do {
            if clock.isTrusted { try store.prune(now: clock.unixSeconds) }
            try store.flush()
            onFlush(nil)
        } catch {
            log.error("cannot write sightings (kept in memory for the next attempt): \(error)")
            onFlush(error)
        }
    }

    private func scheduleFlush() {
        flushTimer = loop.schedule(after: flushInterval) { [weak self] in
            guard let self else { return }
            flush()
            scheduleFlush()
        }
    }
}
