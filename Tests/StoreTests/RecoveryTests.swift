import ENCore
import Foundation
import Testing
import TestSupport
@testable import Store

/// Damage a power cut or a worn card can leave, applied to the bytes of real segments.
@Suite struct RecoveryTests {
    static let perFlush = 10
    /// One flush of ten sightings: a 20-byte header, a version byte, ten 28-byte entries.
    static let recordSize = RecordHeader.size + 1 + perFlush * 28

    /// A store of `flushes` records in one segment (or several, with a small `segmentBytes`).
    private func makeStore(flushes: Int, segmentBytes: Int = 64 << 10) throws -> TemporaryDirectory {
        let dir = TemporaryDirectory()
        var settings = SightingStore.Settings()
        settings.log.segmentBytes = segmentBytes
        let store = try SightingStore(dataDirectory: dir.path, settings: settings)
        for flush in 0..<flushes {
            sightings(flush * Self.perFlush..<(flush + 1) * Self.perFlush).forEach(store.append)
            try store.flush()
        }
        return dir
    }

    private func edit(_ path: String, _ change: (inout [UInt8]) -> Void) throws {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        change(&bytes)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    /// The sightings of every flush but `lost`.
    private func expected(flushes: Int, losing lost: Set<Int> = []) -> [Sighting] {
        (0..<flushes).filter { !lost.contains($0) }.flatMap { sightings($0 * Self.perFlush..<($0 + 1) * Self.perFlush) }
    }

    @Test func randomCorruptionCostsOnlyTheDamagedRecord() throws {
        let original = try makeStore(flushes: 30)
        let pristine = try Data(contentsOf: URL(fileURLWithPath: original.segmentPaths[0]))
        var random = SplitMix64(seed: 2024)
        for trial in 0..<100 {
            let dir = TemporaryDirectory()
            try FileManager.default.createDirectory(atPath: dir.path + "/sightings", withIntermediateDirectories: true)
            let path = dir.path + "/sightings/0000000000.log"
            try pristine.write(to: URL(fileURLWithPath: path))
            let victim = Int.random(in: 0..<29, using: &random)  // the last record would be a torn tail
            try edit(path) { bytes in
                // Distinct bytes, so no two changes cancel out.
                let offsets = Set((0..<Int.random(in: 1...4, using: &random)).map { _ in
                    Int.random(in: 0..<Self.recordSize, using: &random)
                })
                for offset in offsets { bytes[victim * Self.recordSize + offset] ^= UInt8.random(in: 1...255, using: &random) }
            }
            let store = try SightingStore(dataDirectory: dir.path)
            #expect(store.recovery.damagedRecords == 1, "trial \(trial)")
            #expect(store.recovery.skippedBytes == Self.recordSize, "trial \(trial)")
            #expect(store.recovery.truncatedBytes == 0, "trial \(trial)")
            #expect(try store.all() == expected(flushes: 30, losing: [victim]), "trial \(trial)")
            #expect(try store.newestFirst() == expected(flushes: 30, losing: [victim]).reversed(), "trial \(trial)")
            // Appending after damage works; the damage stays where it is and is reported again.
            sightings(1_000..<1_005).forEach(store.append)
            try store.flush()
            let reopened = try SightingStore(dataDirectory: dir.path)
            #expect(reopened.recovery.damagedRecords == 1)
            #expect(try reopened.all() == expected(flushes: 30, losing: [victim]) + sightings(1_000..<1_005))
        }
    }

    @Test func aZeroedBlockCostsTheRecordsItTouches() throws {
        let dir = try makeStore(flushes: 30)
        // 4 KiB of zeros from the middle of record 5 (a page the card lost) reaches into record 19.
        try edit(dir.segmentPaths[0]) { bytes in
            for at in 5 * Self.recordSize + 100..<5 * Self.recordSize + 100 + 4_096 { bytes[at] = 0 }
        }
        let store = try SightingStore(dataDirectory: dir.path)
        let lost = Set(5...(5 * Self.recordSize + 100 + 4_095) / Self.recordSize)
        #expect(store.recovery.damagedRecords == lost.count)
        #expect(try store.all() == expected(flushes: 30, losing: lost))
    }

    @Test func damageAtTheEndOfAnOlderSegmentIsCounted() throws {
        let dir = try makeStore(flushes: 20, segmentBytes: 4 * Self.recordSize)
        #expect(dir.segmentPaths.count == 5)
        try edit(dir.segmentPaths[1]) { $0[$0.count - 1] ^= 1 }  // the last record of the second segment: flush 7
        let store = try SightingStore(dataDirectory: dir.path)
        #expect(store.recovery.damagedRecords == 1)
        #expect(store.recovery.truncatedBytes == 0)  // only the newest segment is ever cut
        #expect(try store.all() == expected(flushes: 20, losing: [7]))
    }

    @Test func aTornTailIsCutBackToTheLastValidRecord() throws {
        let original = try makeStore(flushes: 5)
        let pristine = try Data(contentsOf: URL(fileURLWithPath: original.segmentPaths[0]))
        let lastStart = 4 * Self.recordSize
        for length in 1..<Self.recordSize {
            let dir = TemporaryDirectory()
            try FileManager.default.createDirectory(atPath: dir.path + "/sightings", withIntermediateDirectories: true)
            let path = dir.path + "/sightings/0000000000.log"
            try pristine.prefix(lastStart + length).write(to: URL(fileURLWithPath: path))
            let store = try SightingStore(dataDirectory: dir.path)
            #expect(store.recovery.truncatedBytes == length)
            #expect(store.recovery.damagedRecords == 0)
            #expect(TemporaryDirectory.size(of: path) == lastStart)
            #expect(try store.all() == expected(flushes: 4))
            sightings(40..<50).forEach(store.append)
            try store.flush()
            let reopened = try SightingStore(dataDirectory: dir.path)
            #expect(reopened.recovery.isClean)
            #expect(try reopened.all() == expected(flushes: 5))
        }
    }

    @Test func garbageAfterTheLastRecordIsDropped() throws {
        var random = SplitMix64(seed: 7)
        for trial in 0..<50 {
            let dir = try makeStore(flushes: 3)
            let path = dir.segmentPaths[0]
            var garbage = (0..<Int.random(in: 1...600, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
            if trial % 2 == 0 { garbage.replaceSubrange(0..<min(2, garbage.count), with: [0xE5, 0xB1].prefix(garbage.count)) }
            try edit(path) { $0 += garbage }
            let store = try SightingStore(dataDirectory: dir.path)
            #expect(store.recovery.truncatedBytes == garbage.count, "trial \(trial)")
            #expect(store.recovery.damagedRecords == 0)
            #expect(try store.all() == expected(flushes: 3))
            #expect(TemporaryDirectory.size(of: path) == 3 * Self.recordSize)
        }
    }

    @Test func anEmptyNewestSegmentIsWhereTheNextRecordGoes() throws {
        // What a kill between starting a segment and writing into it leaves.
        let dir = try makeStore(flushes: 2)
        _ = FileManager.default.createFile(atPath: dir.path + "/sightings/0000000002.log", contents: nil)
        let store = try SightingStore(dataDirectory: dir.path)
        #expect(store.recovery.isClean)
        #expect(store.recovery.segments == 2)
        sightings(20..<30).forEach(store.append)
        try store.flush()
        #expect(dir.segmentPaths.count == 2)
        let reopened = try SightingStore(dataDirectory: dir.path)
        #expect(reopened.recovery.isClean)
        #expect(try reopened.all() == expected(flushes: 3))
    }

    @Test func foreignFilesAreLeftAlone() throws {
        let dir = try makeStore(flushes: 1)
        let foreign = dir.path + "/sightings/notes.txt"
        _ = FileManager.default.createFile(atPath: foreign, contents: Data("hello".utf8))
        let store = try SightingStore(dataDirectory: dir.path)
        try store.prune(now: .max / 2)
        #expect(FileManager.default.fileExists(atPath: foreign))
        #expect(store.recovery.isClean)
    }
}
