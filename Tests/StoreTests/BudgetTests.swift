import ENCore
@testable import Simulation
import Testing
import TestSupport
@testable import Store

@Suite struct BudgetTests {
    /// 14 days at 5,000 sightings a day, scanned and flushed as the agent does (a scan every 210–300 s,
    /// a flush every 60 s). The fsyncs are counted but skipped: the figures here are about bytes.
    @Test func fourteenDaysOfFiveThousandFitTheBudget() throws {
        let dir = TemporaryDirectory()
        let files = CountingFileSystem(performsSync: false)
        let figures = try StoreWorkload.run(scratchParent: dir.path, sightingsPerDay: 5_000, days: 14, fileSystem: files)
        #expect(figures.sightings == 70_000)
        #expect(figures.storedSightings == 70_000)
        #expect(figures.bytesOnDisk <= 2_500_000)
        #expect(figures.bytesPerSighting <= 32)
        #expect(figures.bytesWritten == figures.bytesOnDisk)  // append-only: nothing is ever rewritten
        // Exactly one fsync per flush; the only others are the directory's, one per segment started.
        #expect(files.fileSyncs == figures.flushes)
        #expect(files.directorySyncs == (figures.bytesOnDisk + (64 << 10) - 1) / (64 << 10))
        #expect(figures.fsyncs == files.syncs)
        #expect(figures.flushesPerDay > 300 && figures.flushesPerDay < 420)  // one per scan
        #expect(TemporaryDirectory().segmentPaths.isEmpty)
    }
}
