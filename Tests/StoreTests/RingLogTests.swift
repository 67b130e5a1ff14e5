import Testing
import TestSupport
@testable import Store
import SystemIO

@Suite struct RingLogTests {
    private func records(in log: RingLog, order: ReadOrder = .oldestFirst, notBefore cutoff: Int64 = .min) throws
        -> [(sequence: UInt32, time: Int64, payload: [UInt8])] {
        var result: [(UInt32, Int64, [UInt8])] = []
        try log.forEachRecord(order: order, notBefore: cutoff) { result.append(($0.sequence, $0.time, Array($0.payload))); return .proceed }
        return result
    }

    @Test func recordsComeBackWithConsecutiveSequenceNumbersAcrossSegments() throws {
        let dir = TemporaryDirectory()
        let log = try RingLog(directory: dir.path + "/log", settings: .init(byteBudget: 1 << 20, segmentBytes: 100),
                              fileSystem: PosixFileSystem())
        for time in 0..<20 {
            try log.append([RingLog.NewRecord(time: Int64(time), payload: [UInt8](repeating: UInt8(time), count: 30))])
        }
        #expect(log.segmentCount == 10)  // two 50-byte records per 100-byte segment
        let read = try records(in: log)
        #expect(read.map(\.sequence) == Array(0..<20))
        #expect(read.map(\.payload) == (0..<20).map { [UInt8](repeating: UInt8($0), count: 30) })
        #expect(try records(in: log, order: .newestFirst).map(\.time) == (0..<20).reversed().map(Int64.init))
        #expect(try records(in: log, notBefore: 15).map(\.time) == [15, 16, 17, 18, 19])
    }

    @Test func aBatchLargerThanASegmentGetsOneToItself() throws {
        let dir = TemporaryDirectory()
        let files = CountingFileSystem()
        let log = try RingLog(directory: dir.path, settings: .init(byteBudget: 1 << 20, segmentBytes: 100), fileSystem: files)
        try log.append([RingLog.NewRecord(time: 1, payload: [1])])
        try log.append((0..<3).map { RingLog.NewRecord(time: 2, payload: [UInt8](repeating: UInt8($0), count: 60)) })
        #expect(log.segmentCount == 2)
        #expect(files.fileSyncs == 2 && files.writes == 2)  // three records, one write, one fsync
        #expect(log.bytes == 21 + 3 * 80)
        #expect(try records(in: log).map(\.sequence) == [0, 1, 2, 3])
    }

    @Test func readingNewestFirstStopsAtTheFirstSegmentItNeeds() throws {
        let dir = TemporaryDirectory()
        let files = CountingFileSystem()
        let log = try RingLog(directory: dir.path, settings: .init(byteBudget: 1 << 20, segmentBytes: 100), fileSystem: files)
        for time in 0..<20 { try log.append([RingLog.NewRecord(time: Int64(time), payload: [0])]) }
        let readsBefore = files.reads
        var seen = 0
        try log.forEachRecord(order: .newestFirst) { _ in seen += 1; return seen < 3 ? .proceed : .stop }
        #expect(files.reads - readsBefore == 1)
        // Segments whose newest record is before the cutoff are not even opened.
        try log.forEachRecord(notBefore: 19) { _ in .proceed }
        #expect(files.reads - readsBefore == 2)
    }

    @Test func opensAnEmptyDirectoryWithoutWritingAnything() throws {
        let dir = TemporaryDirectory()
        let files = CountingFileSystem()
        let log = try RingLog(directory: dir.path, fileSystem: files)
        try log.trim(expiredBefore: 1_000)
        #expect(log.segmentCount == 0 && log.bytes == 0 && log.recovery == RecoveryReport())
        #expect(files.writes == 0 && files.syncs == 0)
        #expect(try records(in: log).isEmpty)
    }
}
