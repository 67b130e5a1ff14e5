import ENCore
import SystemIO
/// The sightings of the last 14 days, on a ring log in `DATA/sightings/`.
///
/// `append` only queues in memory; `flush` (the agent calls it every flush interval and on SIGTERM)
/// writes everything queued as one write and one fsync, so a power cut loses at most one interval.
/// Reads go to disk a segment at a time and never hold all sightings in memory.
///
/// Retention: `prune(now:)` sets the cutoff (now − 14 days). From then on older sightings are never
/// returned, and a segment is removed once all of it is older — at most one segment's worth of expired
/// sightings waits on disk, unreadable.
public final class SightingStore {
    public struct Settings: Hashable, Sendable {
        /// Seconds a sighting is kept: 14 days, as GAEN requires.
        public var retention: Int64 = 14 * 86_400
        public var log = RingLog.Settings()
        /// Sightings held for the next flush at most; beyond it new ones are dropped (and counted) so a
        /// card that refuses writes cannot exhaust memory.
        public var pendingLimit = 20_000

        public init() {}
    }

    /// The folder under the data directory that holds the segments.
    public static let folderName = "sightings"

    public let settings: Settings
    private let log: RingLog
    private var pending: [Sighting] = []
    private var droppedSightings = 0
    /// Sightings first seen before this (Unix seconds) are expired; `.min` until `prune(now:)` is called.
    public private(set) var retentionCutoff: Int64 = .min

    /// Opens (creating if need be) the store under `dataDirectory` on `fileSystem`, recovering from any crash.
    /// (On Linux, `init(dataDirectory:settings:)` opens it on the kernel's file system.)
    public init(dataDirectory: String, settings: Settings = Settings(), fileSystem: any FileSystem) throws(SystemError) {
        self.settings = settings
        log = try RingLog(directory: dataDirectory + "/" + Self.folderName, settings: settings.log,
                          fileSystem: fileSystem)
    }

    /// What opening found: damaged records skipped, torn tail truncated.
    public var recovery: RecoveryReport { log.recovery }
    /// Writes and fsyncs since opening.
    public var statistics: RingLog.Statistics { log.statistics }
    public var pendingCount: Int { pending.count }

    /// Queues a sighting for the next flush.
    public func append(_ sighting: Sighting) {
        guard pending.count < settings.pendingLimit else {
            droppedSightings += 1
            return
        }
        pending.append(sighting)
    }

    /// Makes every queued sighting durable: one write, one fsync (one more when a segment starts), none
    /// at all when nothing is queued. Then drops segments over budget or expired.
    ///
    /// If the write fails the sightings stay queued for the next flush; if only the removal of an old
    /// segment fails afterwards, the sightings are durable and the error is still thrown.
    public func flush() throws(SystemError) {
        guard !pending.isEmpty else { return }
        try log.append(SightingRecordFormat.records(for: pending))
        pending.removeAll(keepingCapacity: true)
        try log.trim(expiredBefore: retentionCutoff)
    }

    /// Expires sightings first seen more than `settings.retention` seconds before `now` (Unix seconds):
    /// hidden from every read at once, removed from disk segment by segment.
    /// Deletes every sighting, stored or waiting for a flush (the console's `wipe`).
    public func removeAll() throws(SystemError) {
        pending.removeAll()
        try log.removeAll()
    }

    public func prune(now: Int64) throws(SystemError) {
        // Follows the clock both ways: a clock corrected backwards must not hide recent sightings.
        retentionCutoff = now - settings.retention
        try log.trim(expiredBefore: retentionCutoff)
    }

    /// Visits the unexpired sightings first seen at or after `since`, queued ones included (they are the
    /// newest). Oldest first is the order of appending.
    public func forEach(since: Int64 = .min, order: ReadOrder = .oldestFirst,
                        _ visit: (Sighting) -> VisitDecision) throws(SystemError) {
        let cutoff = max(since, retentionCutoff)
        var stopped = false
        func visitPending() {
            for index in order.indices(pending.count) where !stopped && pending[index].firstSeen >= cutoff {
                stopped = visit(pending[index]) == .stop
            }
        }
        if order == .newestFirst { visitPending() }
        if stopped { return }
        try log.forEachRecord(order: order, notBefore: cutoff) { record in
            guard let sightings = SightingRecordFormat.Reader(record) else { return .proceed }
            for index in order.indices(sightings.count) {
                let sighting = sightings[index]
                guard sighting.firstSeen >= cutoff else { continue }
                if visit(sighting) == .stop {
                    stopped = true
                    return .stop
                }
            }
            return .proceed
        }
        if order == .oldestFirst && !stopped { visitPending() }
    }

    /// The newest `limit` unexpired sightings first seen at or after `since`, newest first (the console's
    /// `sightings` command).
    public func newestFirst(since: Int64 = .min, limit: Int = .max) throws(SystemError) -> [Sighting] {
        var result: [Sighting] = []
        guard limit > 0 else { return result }
        try forEach(since: since, order: .newestFirst) { sighting in
            result.append(sighting)
            return result.count < limit ? .proceed : .stop
        }
        return result
    }

    /// Reads the oldest readable sighting from disk (one segment), the rest from memory.
    public func usage() throws(SystemError) -> StoreUsage {
        var oldest: Int64?
        try forEach { sighting in
            oldest = sighting.firstSeen
            return .stop
        }
        return StoreUsage(
            bytes: log.bytes, segments: log.segmentCount, records: log.recordCount,
            storedSightings: SightingRecordFormat.sightingCount(payloadBytes: log.payloadBytes, records: log.recordCount),
            pendingSightings: pending.count, droppedSightings: droppedSightings, oldestSighting: oldest)
    }
}
