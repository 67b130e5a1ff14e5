import ENCore
@testable import Simulation
import Foundation
import Glibc
import Testing
import TestSupport
@testable import Store

/// The store under a process killed at random moments. SIGKILL stops the writer between any two system
/// calls — before a segment's first record, between a write and its fsync, and (its writes going out in
/// small pieces) in the middle of a record, as a power cut can. What a power cut adds, losing the page
/// cache, is what the fsync before each acknowledgement is for; only pulling the plug tests that.
@Suite struct PowerCutTests {
    /// Small segments and budget, so that starting and removing segments also happen under the kills;
    /// writes in 16-byte pieces, so that kills inside a flush tear records as a power cut would.
    static let writerOptions = ["--segment-bytes", "4096", "--budget", "65536", "--batch", "20", "--pause-ms", "1",
                                "--write-chunk", "16"]

    enum Moment: CaseIterable { case atStart, midFlush, betweenFlushes }

    @Test func twoHundredKillsLoseNothingAcknowledged() throws {
        let dir = TemporaryDirectory()
        let data = dir.path + "/data"
        let stderrPath = dir.path + "/stderr"
        var random = SplitMix64(seed: 1_234)
        var acknowledged = 0  // the highest END of a `flushed END` line: sightings below it are durable
        var announced = 0     // the highest END of a `flushing END` line: nothing at or above it was written
        var resumes = 0
        var killedInsideFlush = 0  // rounds whose last flush began and was never acknowledged
        var moments: [Moment: Int] = [:]

        func check(_ line: String, round: Int) {
            let fields = line.split(separator: " ").map(String.init)
            switch (fields.first, fields.count) {
            case ("resume", 5):
                // `resume FIRST END DAMAGED TRUNCATED`: the writer has verified that FIRST..<END is exactly
                // the synthetic run; END must reach every acknowledged sighting and invent none.
                resumes += 1
                let end = Int(fields[2]) ?? -1
                #expect(end >= acknowledged && end <= announced, "round \(round): \(line)")
                #expect(fields[3] == "0", "round \(round): damaged records after a kill: \(line)")
            case ("flushing", 2): announced = max(announced, Int(fields[1]) ?? 0)
            case ("flushed", 2): acknowledged = max(acknowledged, Int(fields[1]) ?? 0)
            default: Issue.record("round \(round): unexpected line \(line)")
            }
        }

        for round in 0..<200 {
            let announcedBefore = announced
            let writer = WriterProcess([data] + Self.writerOptions, stderrPath: stderrPath)
            let moment = Moment.allCases[Int(random.next() % 3)]
            moments[moment, default: 0] += 1
            switch moment {
            case .atStart:
                usleep(UInt32(random.next() % 3_000))
            case .midFlush, .betweenFlushes:
                let marker = moment == .midFlush ? "flushing" : "flushed"
                var seen = 0
                let wanted = 1 + Int(random.next() % 4)
                while seen < wanted, let line = writer.nextLine() {
                    check(line, round: round)
                    if line.hasPrefix(marker + " ") { seen += 1 }
                }
                try #require(seen == wanted, "round \(round): the writer stopped early: \(stderrText(stderrPath))")
                usleep(UInt32(random.next() % (moment == .midFlush ? 300 : 2_000)))
            }
            let status = writer.kill()
            // Lines printed before the kill are true acknowledgements too.
            writer.remainingLines().forEach { check($0, round: round) }
            if announced > max(acknowledged, announcedBefore) { killedInsideFlush += 1 }
            try #require(WriterProcess.killedBySIGKILL(status),
                         "round \(round): the writer exited \(status) by itself: \(stderrText(stderrPath))")
        }

        // Whatever the last kill left opens, holds every acknowledged sighting, and nothing else.
        var settings = SightingStore.Settings()
        settings.log = RingLog.Settings(byteBudget: 65_536, segmentBytes: 4_096)
        let store = try SightingStore(dataDirectory: data, settings: settings)
        #expect(store.recovery.damagedRecords == 0)
        let stored = try store.all()
        let first = Int(try #require(stored.first).firstSeen - 1_700_000_000)
        #expect(first > 0)  // the budget removed the oldest segments along the way
        #expect(stored == (first..<first + stored.count).map {
            SyntheticSightings.sighting(number: $0, firstSeen: 1_700_000_000 + Int64($0))
        })
        #expect(first + stored.count >= acknowledged && first + stored.count <= announced)
        // Every round that got as far as a flush had resumed first (most killed at start had not yet).
        #expect(resumes >= moments[.midFlush, default: 0] + moments[.betweenFlushes, default: 0])
        #expect(moments.values.allSatisfy { $0 > 40 })
        #expect(killedInsideFlush > 20, "only \(killedInsideFlush) kills landed between `flushing` and `flushed`")
    }

    @Test func anotherProcessHoldingTheDirectoryIsNamed() throws {
        let dir = TemporaryDirectory()
        let writer = WriterProcess([dir.path] + Self.writerOptions, stderrPath: dir.path + "/stderr")
        defer { writer.kill() }
        try #require(writer.nextLine()?.hasPrefix("resume ") == true)
        #expect(throws: DataDirectoryLockError.inUse(directory: dir.path, pid: writer.pid)) {
            try DataDirectoryLock(directory: dir.path)
        }
        let second = WriterProcess([dir.path], stderrPath: dir.path + "/stderr2")
        #expect(WriterProcess.exitCode(second.wait()) == 3)
        #expect(stderrText(dir.path + "/stderr2").contains("(pid \(writer.pid))"))
    }

    /// A store of 100,000 sightings filled and read back by a process of its own takes no more memory
    /// than one of 1,000: nothing is held per sighting. (Keeping them all would take 4 MB.) The absolute
    /// figure belongs to the release build: a debug build's dynamic runtime alone is ~8 MB.
    @Test func memoryDoesNotGrowWithTheStore() throws {
        func peakKilobytes(filling count: Int) throws -> Int {
            let dir = TemporaryDirectory()
            let writer = WriterProcess([dir.path, "--fill", String(count)], stderrPath: dir.path + "/stderr")
            let line = try #require(writer.nextLine(timeout: 60), "\(stderrText(dir.path + "/stderr"))")
            #expect(WriterProcess.exitCode(writer.wait()) == 0)
            let fields = line.split(separator: " ")
            #expect(fields.count == 3 && fields[0] == "rss" && fields[2] == Substring(String(count)), "\(line)")
            return try #require(fields.count == 3 ? Int(fields[1]) : nil, "\(line)")
        }
        let small = try peakKilobytes(filling: 1_000)
        let large = try peakKilobytes(filling: 100_000)
        #expect(large - small < 1_024, "peak RSS \(small) kB with 1,000 sightings, \(large) kB with 100,000")
    }

    private func stderrText(_ path: String) -> String {
        (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
    }
}
