import AgentBase
import ENCore
import EventLoop
import HCI
import Store
import SystemIO

/// Turns what the radio hears during scan windows into sightings and keeps them: one `Sighting` per RPI
/// and scan (`ScanAggregator`), batched in the store until `flush` writes them with one fsync.
///
/// Bounded against floods: at most `limits.perScan` new sightings from one scan window and `limits.perHour`
/// in an hour; what goes beyond is counted (`storage`) and dropped, so a transmitter spraying random RPIs
/// cannot push two weeks of real sightings out of the ring.
package final class SightingRecorder {
    package struct Limits: Equatable, Sendable {
        var perScan: Int
        var perHour: Int
        init(perScan: Int = 256, perHour: Int = 1200) {
            self.perScan = perScan
            self.perHour = perHour
        }

        init(configuration c: Configuration) {
            self.init(perScan: c.integer(.sightingsMaximumPerScan), perHour: c.integer(.sightingsMaximumPerHour))
        }
    }

    /// Sightings dropped because a scan window or an hour was over its limit, since the agent started.
    package struct Dropped: Equatable, Sendable {
        package var overScanLimit = 0
        package var overHourLimit = 0
    }

    package var limits: Limits {
        didSet { aggregator = ScanAggregator(maximumDistinct: limits.perScan) }
    }
    package private(set) var dropped = Dropped()
    private let store: SightingStore
    private let log: Logger
    private var aggregator: ScanAggregator
    private var previousScanStart: MonotonicInstant?
    /// The hour being counted against `limits.perHour` (loop time, so clock jumps do not reset it).
    private var hour: (start: MonotonicInstant, count: Int)?
    /// Sightings made since the agent started.
    package private(set) var recorded = 0
    /// The last flush's failure, nil once a flush succeeds: what `status` reports about storage.
    package private(set) var lastError: SystemError?
    /// Observes the sightings of each finished scan (simulations, tests).
    var onSightings: ([Sighting]) -> Void = { _ in }

    init(store: SightingStore, limits: Limits, log: Logger) {
        self.store = store
        self.limits = limits
        self.log = log
        aggregator = ScanAggregator(maximumDistinct: limits.perScan)
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
        let overScan = aggregator.dropped
        var sightings = aggregator.finish(secondsSincePreviousScan: UInt16(gap))
        if hour == nil || start - hour!.start >= .seconds(3600) { hour = (start, 0) }
        let allowed = max(0, limits.perHour - hour!.count)
        let overHour = max(0, sightings.count - allowed)
        sightings.removeLast(overHour)
        hour!.count += sightings.count
        if overScan > 0 || overHour > 0 {
            dropped.overScanLimit += overScan
            dropped.overHourLimit += overHour
            log.warn("scan: \(overScan + overHour) more beacons than the limits allow "
                     + "(\(limits.perScan) a scan, \(limits.perHour) an hour) were not stored")
        }
        guard !sightings.isEmpty else { return }
        recorded += sightings.count
        sightings.forEach(store.append)
        let strongest = sightings.compactMap { $0.signal?.max }.sorted(by: >).prefix(5).map { "\($0)" }
        log.info("scan heard \(sightings.count) GAEN beacon(s)"
                 + (strongest.isEmpty ? "" : ", strongest \(strongest.joined(separator: ", ")) dBm"))
        onSightings(sightings)
    }

    /// Forgets the scan in progress (the console's `wipe`).
    func discardScan() { aggregator = ScanAggregator() }

    /// Writes the batched sightings with one fsync. A failure keeps the batch in memory for the next attempt.
    package func flush() {
        do {
            try store.flush()
            if lastError != nil { log.info("sightings written again") }
            lastError = nil
        } catch {
            if lastError != error { log.error(.sightingsUnwritable, "cannot write sightings (kept in memory for the next attempt): \(error)") }
            lastError = error
        }
    }
}
