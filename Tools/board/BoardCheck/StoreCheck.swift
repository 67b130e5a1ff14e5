import CBoardLibc
import ENCore
import Store
import SystemIO

/// The sighting store on the board's CPU, through the same Store and SystemIO the agent uses: sightings
/// written, flushed, reopened and read back equal; times past 2038 (Int32 seconds would wrap) kept exact; a
/// torn tail cut on reopening without losing a flushed sighting; retention that hides what is 14 days old.
/// Where Int is 32 bits, a record time or a file offset computed in Int would show here.
enum StoreCheck {
    static func run() -> Tally {
        var tally = Tally()
        let directory: String
        do { directory = try Posix.makeTemporaryDirectory("/tmp/enbeacon-board-store-") } catch {
            tally.check(false, "store: no temporary directory: \(error)")
            return tally
        }
        defer { Posix.removeTree(directory) }

        // 2039-09-18, past 2^31 seconds: the record times must be 64-bit on every CPU.
        let start: Int64 = 2_200_000_000
        let written = (0..<3_000).map { sighting($0, at: start + Int64($0) * 60) }
        do {
            let store = try SightingStore(dataDirectory: directory)
            for s in written { store.append(s) }
            try store.flush()
        } catch {
            tally.check(false, "store: writing failed: \(error)")
            return tally
        }
        tally.check(read(directory) == written, "store: 3,000 sightings past 2038 not read back equal")

        // A write torn by a power cut: bytes after the last record, never acknowledged.
        let segments = segmentPaths(directory + "/" + SightingStore.folderName)
        if let newest = segments.last, let file = fopen(newest, "ab") {
            let junk: [UInt8] = [0x5A, 0x17, 0x00, 0xFF, 0x42, 0x42, 0x42]
            _ = junk.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
            fclose(file)
        } else {
            tally.check(false, "store: no segment file to tear")
        }
        do {
            let reopened = try SightingStore(dataDirectory: directory)
            tally.check(reopened.recovery.truncatedBytes == 7,
                        "store: torn tail of 7 bytes, recovery cut \(reopened.recovery.truncatedBytes)")
            var seen = 0
            try reopened.forEach { _ in seen += 1; return .proceed }
            tally.check(seen == written.count, "store: after the torn tail \(seen) of \(written.count) sightings")
            try reopened.prune(now: start + 3_000 * 60 + 14 * 86_400 + 1)
            var kept = 0
            try reopened.forEach { _ in kept += 1; return .proceed }
            tally.check(kept == 0, "store: \(kept) sightings older than 14 days still readable")
        } catch {
            tally.check(false, "store: reopening failed: \(error)")
        }
        return tally
    }

    private static func sighting(_ index: Int, at time: Int64) -> Sighting {
        var rpi = [UInt8](repeating: 0, count: 16)
        for byte in 0..<16 { rpi[byte] = UInt8(truncatingIfNeeded: index &* 31 &+ byte &* 7) }
        return Sighting(rpi: Bytes16(rpi)!, aem: AssociatedEncryptedMetadata(word: UInt32(truncatingIfNeeded: index) &* 2_654_435_761),
                        firstSeen: time, signal: SignalStrength(max: Int8(-40 - index % 50), mean: Int8(-45 - index % 50)),
                        reports: index % 70_000, secondsSincePreviousScan: index % 300)
    }

    private static func read(_ directory: String) -> [Sighting]? {
        guard let store = try? SightingStore(dataDirectory: directory) else { return nil }
        var sightings: [Sighting] = []
        do { try store.forEach { sightings.append($0); return .proceed } } catch { return nil }
        return sightings
    }

    private static func segmentPaths(_ folder: String) -> [String] {
        guard let names = try? Posix.fileNames(in: folder) else { return [] }
        return names.sorted().map { folder + "/" + $0 }
    }
}
