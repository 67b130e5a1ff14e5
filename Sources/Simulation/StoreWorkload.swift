import ENCore
import Store
import SystemIO

/// The sighting store under a synthetic workload (`enbeacon bench store` prints its figures; the storage
/// budget test asserts them):
/// days of scans at a given sightings-per-day, flushed every flush interval and pruned as the agent
/// does, written into a fresh directory that is removed afterwards. Simulated time; real files.
package enum StoreWorkload {
    package struct Figures: Hashable, Sendable {
        package var days: Int
        package var sightingsPerDay: Int
        /// Sightings appended over the run.
        package var sightings: Int
        /// Segment bytes on disk at the end, and the sightings they hold.
        package var bytesOnDisk: Int
        package var storedSightings: Int
        /// bytesOnDisk / storedSightings, record overhead included.
        package var bytesPerSighting: Double
        /// Sightings appended and made durable per second of wall time, flushes and fsyncs included.
        package var appendsPerSecond: Double
        package var meanFlushMicroseconds: Double
        /// Data the store wrote over the run (not counting what the file system adds).
        var bytesWritten: Int
        /// Flushes that wrote anything, and the fsyncs (file and directory) they cost.
        package var flushes: Int
        package var fsyncs: Int

        package var bytesWrittenPerDay: Double { Double(bytesWritten) / Double(days) }
        package var flushesPerDay: Double { Double(flushes) / Double(days) }
        package var fsyncsPerDay: Double { Double(fsyncs) / Double(days) }
    }

    /// A fixed start, so runs compare: 2023-11-14.
    static let epoch: Int64 = 1_700_000_000

    /// Runs the workload in a new temporary directory under `scratchParent`.
    package static func run(scratchParent: String = "/tmp", sightingsPerDay: Int = 5_000, days: Int = 14,
                           flushInterval: Int64 = 60,
                           fileSystem: any FileSystem = PosixFileSystem()) throws(SystemError) -> Figures {
        precondition(days > 0 && sightingsPerDay >= 0 && flushInterval > 0)
        let directory = try Posix.makeTemporaryDirectory(scratchParent + "/enbeacon-bench-")
        let store: SightingStore
        do { store = try SightingStore(dataDirectory: directory, fileSystem: fileSystem) } catch {
            Posix.removeDirectory(directory)
            throw error
        }
        // The segments, the sightings folder and the scratch directory go, without a sync the figures would count.
        defer {
            let folder = directory + "/" + SightingStore.folderName
            for name in (try? fileSystem.fileNames(in: folder)) ?? [] { try? fileSystem.removeFile(folder + "/" + name) }
            Posix.removeDirectory(folder)
            Posix.removeDirectory(directory)
        }
        var flushing = Duration.zero, flushes = 0
        let began = KernelClock.monotonicNanoseconds()
        var schedule = SyntheticScanSchedule(start: epoch, days: days, sightingsPerDay: sightingsPerDay)
        var nextFlush = epoch + flushInterval
        while let scan = schedule.next() {
            let windowEnd = scan.start + SyntheticScanSchedule.scanDuration
            // Flush ticks before this scan's sightings are handed over.
            while nextFlush <= windowEnd {
                try tick(store, now: nextFlush, flushing: &flushing, flushes: &flushes)
                nextFlush += flushInterval
            }
            for number in scan.sightings {
                store.append(SyntheticSightings.sighting(number: number, firstSeen: scan.start + Int64(number % 4)))
            }
        }
        try tick(store, now: nextFlush, flushing: &flushing, flushes: &flushes)
        let elapsed = Duration.nanoseconds(KernelClock.monotonicNanoseconds() - began)

        let usage = try store.usage()
        let statistics = store.statistics
        return Figures(
            days: days, sightingsPerDay: sightingsPerDay, sightings: schedule.totalSightings,
            bytesOnDisk: usage.bytes, storedSightings: usage.storedSightings,
            bytesPerSighting: usage.storedSightings > 0 ? Double(usage.bytes) / Double(usage.storedSightings) : 0,
            appendsPerSecond: Double(schedule.totalSightings) / max(seconds(elapsed), 1e-9),
            meanFlushMicroseconds: flushes > 0 ? seconds(flushing) * 1e6 / Double(flushes) : 0,
            bytesWritten: statistics.bytesAppended, flushes: flushes,
            fsyncs: statistics.fileSyncs + statistics.directorySyncs)
    }

    /// What the agent does every flush interval: expire, then flush.
    private static func tick(_ store: SightingStore, now: Int64, flushing: inout Duration,
                             flushes: inout Int) throws(SystemError) {
        try store.prune(now: now)
        guard store.pendingCount > 0 else { return }
        let began = KernelClock.monotonicNanoseconds()
        try store.flush()
        flushing += .nanoseconds(KernelClock.monotonicNanoseconds() - began)
        flushes += 1
    }

    private static func seconds(_ duration: Duration) -> Double {
        let parts = duration.components
        return Double(parts.seconds) + Double(parts.attoseconds) * 1e-18
    }
}
