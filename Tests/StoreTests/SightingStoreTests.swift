import ENCore
import Foundation
import Testing
import TestSupport
@testable import Store
import SystemIO

@Suite struct SightingStoreTests {
    static let day: Int64 = 86_400

    private func settings(segmentBytes: Int = 64 << 10, budget: Int = 4 << 20) -> SightingStore.Settings {
        var settings = SightingStore.Settings()
        settings.log = RingLog.Settings(byteBudget: budget, segmentBytes: segmentBytes)
        return settings
    }

    @Test func roundTripsInOrderAcrossFlushes() throws {
        let dir = TemporaryDirectory()
        let store = try SightingStore(dataDirectory: dir.path)
        let expected = sightings(0..<250)
        for batch in stride(from: 0, to: 250, by: 50) {
            expected[batch..<batch + 50].forEach(store.append)
            try store.flush()
        }
        #expect(try store.all() == expected)
        #expect(try store.newestFirst() == expected.reversed())
        #expect(try store.newestFirst(limit: 3) == Array(expected.reversed().prefix(3)))
        #expect(try store.newestFirst(limit: 0) == [])
        #expect(try store.all(since: expected[200].firstSeen) == Array(expected[200...]))
        #expect(try store.newestFirst(since: expected[248].firstSeen) == [expected[249], expected[248]])
    }

    @Test func queuedSightingsAreReadableBeforeTheFlush() throws {
        let dir = TemporaryDirectory()
        let store = try SightingStore(dataDirectory: dir.path)
        sightings(0..<5).forEach(store.append)
        try store.flush()
        sightings(5..<8).forEach(store.append)
        #expect(store.pendingCount == 3)
        #expect(try store.all() == sightings(0..<8))
        #expect(try store.newestFirst(limit: 4) == sightings(4..<8).reversed())
        #expect(try store.usage().storedSightings == 5)
        #expect(try store.usage().pendingSightings == 3)
    }

    @Test func reopeningKeepsEverythingAndContinuesTheSequence() throws {
        let dir = TemporaryDirectory()
        do {
            let store = try SightingStore(dataDirectory: dir.path, settings: settings(segmentBytes: 1_024, budget: 1 << 20))
            for start in stride(from: 0, to: 300, by: 30) {
                sightings(start..<start + 30).forEach(store.append)
                try store.flush()
            }
        }
        let reopened = try SightingStore(dataDirectory: dir.path, settings: settings(segmentBytes: 1_024, budget: 1 << 20))
        #expect(reopened.recovery.isClean)
        #expect(reopened.recovery.records == 10)
        #expect(reopened.recovery.segments == dir.segmentPaths.count)
        #expect(dir.segmentPaths.count > 5)
        sightings(300..<330).forEach(reopened.append)
        try reopened.flush()
        let third = try SightingStore(dataDirectory: dir.path, settings: settings(segmentBytes: 1_024, budget: 1 << 20))
        #expect(third.recovery.isClean)  // sequence numbers carried on: no gap reported
        #expect(try third.all() == sightings(0..<330))
    }

    @Test func nothingOlderThanFourteenDaysIsReadableAndExpiredSegmentsGo() throws {
        let dir = TemporaryDirectory()
        let store = try SightingStore(dataDirectory: dir.path, settings: settings(segmentBytes: 4_096))
        let start: Int64 = 1_700_000_000
        // 20 days, one flush of 10 sightings an hour.
        let all = sightings(0..<4_800, start: start, spacing: 360)
        for hour in 0..<480 {
            all[hour * 10..<hour * 10 + 10].forEach(store.append)
            try store.flush()
        }
        let bytesBefore = try store.usage().bytes
        let now = start + 20 * Self.day
        try store.prune(now: now)
        let cutoff = now - 14 * Self.day
        let kept = try store.all()
        #expect(kept == all.filter { $0.firstSeen >= cutoff })
        #expect(try store.newestFirst().last == kept.first)
        // Whole segments went: what remains on disk is at most one segment of expired sightings.
        let usage = try store.usage()
        #expect(usage.bytes < bytesBefore * 3 / 4)
        #expect(usage.storedSightings - kept.count <= 4_096 / 28)
        #expect(usage.oldestSighting == kept.first?.firstSeen)
        // After 14 idle days everything goes, and the log carries on.
        try store.prune(now: all.last!.firstSeen + 14 * Self.day + 1)
        #expect(try store.all() == [])
        #expect(try store.usage().storedSightings == 0)
        #expect(dir.segmentPaths.count == 1)
        let later = sightings(5_000..<5_010, start: start, spacing: 360)
        later.forEach(store.append)
        try store.flush()
        let reopened = try SightingStore(dataDirectory: dir.path)
        #expect(reopened.recovery.isClean)
        #expect(try reopened.all() == later)
    }

    @Test func theByteBudgetDropsTheOldestSegments() throws {
        let dir = TemporaryDirectory()
        let store = try SightingStore(dataDirectory: dir.path, settings: settings(segmentBytes: 2_048, budget: 8_192))
        let all = sightings(0..<2_000)
        for batch in stride(from: 0, to: 2_000, by: 20) {
            all[batch..<batch + 20].forEach(store.append)
            try store.flush()
            #expect(try store.usage().bytes <= 8_192)
        }
        let kept = try store.all()
        #expect(kept.count > 8_192 / 2 / 28)
        #expect(kept == Array(all.suffix(kept.count)))  // a suffix: the oldest went first
        #expect(store.statistics.segmentsRemoved > 10)
        #expect(dir.segmentPaths.reduce(0) { $0 + TemporaryDirectory.size(of: $1) } == (try store.usage().bytes))
    }

    @Test func oneFsyncPerFlushAndNoneWhenIdle() throws {
        let dir = TemporaryDirectory()
        let files = CountingFileSystem()
        let store = try SightingStore(dataDirectory: dir.path, settings: settings(segmentBytes: 4_096), fileSystem: files)
        try store.flush()
        #expect(files.syncs - files.directorySyncs == 0)
        var rotations = 0
        for batch in 0..<100 {
            let (fileSyncs, directorySyncs) = (files.fileSyncs, files.directorySyncs)
            let started = store.statistics.segmentsStarted
            sightings(batch * 15..<batch * 15 + 15).forEach(store.append)
            try store.flush()
            #expect(files.fileSyncs - fileSyncs == 1)
            #expect(files.directorySyncs - directorySyncs == store.statistics.segmentsStarted - started)
            rotations += store.statistics.segmentsStarted - started
            try store.flush()  // nothing queued: no write, no fsync
        }
        #expect(files.fileSyncs == 100 && files.writes == 100)
        // 100 × 441 bytes in 4 KiB segments: a directory fsync about every ninth flush.
        #expect(rotations == 12)
        #expect(store.statistics.fileSyncs == files.fileSyncs)
    }

    @Test func aFailedWriteKeepsTheBatchQueuedAndTheLogClean() throws {
        let dir = TemporaryDirectory()
        let files = CountingFileSystem()
        let store = try SightingStore(dataDirectory: dir.path, fileSystem: files)
        sightings(0..<10).forEach(store.append)
        try store.flush()
        let size = TemporaryDirectory.size(of: dir.segmentPaths[0])
        files.failWrites = ENOSPC
        sightings(10..<20).forEach(store.append)
        #expect(throws: SystemError.self) { try store.flush() }
        #expect(store.pendingCount == 10)
        #expect(TemporaryDirectory.size(of: dir.segmentPaths[0]) == size)  // the half-written batch was cut
        files.failWrites = nil
        try store.flush()
        #expect(store.pendingCount == 0)
        let reopened = try SightingStore(dataDirectory: dir.path)
        #expect(reopened.recovery.isClean)
        #expect(try reopened.all() == sightings(0..<20))
    }

    @Test func aCardThatNeverTakesWritesCannotExhaustMemory() throws {
        let dir = TemporaryDirectory()
        var limited = settings()
        limited.pendingLimit = 100
        let store = try SightingStore(dataDirectory: dir.path, settings: limited)
        sightings(0..<150).forEach(store.append)
        let usage = try store.usage()
        #expect(usage.pendingSightings == 100 && usage.droppedSightings == 50)
        try store.flush()
        #expect(try store.all() == sightings(0..<100))
    }

    @Test func usageCountsWhatIsOnDisk() throws {
        let dir = TemporaryDirectory()
        let store = try SightingStore(dataDirectory: dir.path)
        #expect(try store.usage() == StoreUsage(bytes: 0, segments: 0, records: 0, storedSightings: 0,
                                                pendingSightings: 0, droppedSightings: 0, oldestSighting: nil))
        sightings(0..<40).forEach(store.append)
        try store.flush()
        sightings(40..<41).forEach(store.append)
        #expect(try store.usage() == StoreUsage(bytes: RecordHeader.size + 1 + 40 * 28, segments: 1, records: 1,
                                                storedSightings: 40, pendingSightings: 1, droppedSightings: 0,
                                                oldestSighting: 1_700_000_000))
    }

    @Test func filesArePrivate() throws {
        let dir = TemporaryDirectory()
        let store = try SightingStore(dataDirectory: dir.path + "/data")
        sightings(0..<1).forEach(store.append)
        try store.flush()
        #expect(TemporaryDirectory.mode(of: dir.path + "/data") == 0o700)
        #expect(TemporaryDirectory.mode(of: dir.path + "/data/sightings") == 0o700)
        #expect(TemporaryDirectory.mode(of: dir.path + "/data/sightings/0000000000.log") == 0o600)
    }
}
