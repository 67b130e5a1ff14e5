import CMCU
import ENCore
import Store
import SystemIO

/// The sighting store's cases of a case file (the line format is in VectorCheck.swift): the store's own files
/// (RingLog, SightingStore) on the flash part through FlashFileSystem, as a wristband would keep them.
///
/// - `storefill BATCH FLUSHES SEGMENTS SIGHTINGS`: a new part, FLUSHES flushes of BATCH sightings each; the store
///   must then hold SEGMENTS segments and its newest SIGHTINGS sightings (the byte budget drops the oldest
///   segments), the same after mounting again, with a clean recovery. Tools/mcu/store_cases.py computes the two
///   from the ring's rules (a segment a page, a new one when a record would not fit, the oldest dropped over budget).
/// - `storecut SEED FLUSHES MOST`: FLUSHES flushes of 1 to MOST sightings (the seed picks them), then one more
///   flush, cut by the power at each of its flash operations in turn (and once not at all); a case each. After
///   each cut the part is mounted again and must hold every sighting it held before the flush, and the flush's
///   batch whole or not at all (whole if `flush` returned), in order, the same bytes, with a clean recovery (a
///   torn write is never read); a further flush must then succeed and read back after one more mounting.
struct StoreCases {
    /// Cases checked, cut points among them, and the deepest stack while the store worked.
    private(set) var cases = 0
    private(set) var cuts = 0
    private(set) var stack = 0
    private(set) var heapInUse = 0

    static let dataDirectory = "/flash"

    /// The store on the part: a segment a page, a flush's batch at most 40 sightings (a record of 1,141 bytes).
    /// The ring's budget is in bytes and the part's in pages: a page a record no longer fits in holds at least
    /// 3,840 − 1,141 + 1 = 2,700 bytes, so a budget of twelve times that keeps at most twelve such pages and the
    /// newest, and leaves the part's other three for a segment being started, a page being copied and one a cut
    /// left to erase.
    static let mostInFlush = 40
    static var settings: SightingStore.Settings {
        var settings = SightingStore.Settings()
        let record = 20 + 1 + 28 * mostInFlush
        settings.log = RingLog.Settings(byteBudget: 12 * (FlashPage.dataBytes - record + 1), segmentBytes: FlashPage.dataBytes)
        settings.pendingLimit = mostInFlush
        return settings
    }

    static func mount() throws(SystemError) -> SightingStore {
        let fileSystem = try FlashFileSystem(directory: dataDirectory + "/" + SightingStore.folderName)
        return try SightingStore(dataDirectory: dataDirectory, settings: settings, fileSystem: fileSystem)
    }

    /// `storefill`: a result for the case, or a description of what is wrong with the line.
    mutating func fill(_ f: [String]) -> Result<(Bool, String), CaseLineError> {
        guard let batch = Int(f[0]), let flushes = Int(f[1]), let segments = Int(f[2]), let sightings = Int(f[3]),
              (1...Self.mostInFlush).contains(batch), flushes > 0 else { return .failure(CaseLineError("bad field")) }
        mcu_flash_new_part()
        let made = CaseSightings(seed: UInt64(batch * 1_000 + flushes))
        let what = "storefill \(batch) \(flushes)"
        cases += 1
        do throws(SystemError) {
            let store = try Self.mount()
            for flush in 0..<flushes {
                for index in flush * batch..<(flush + 1) * batch { store.append(made.sighting(index)) }
                try store.flush()
                noteMemory()
            }
            let usage = try store.usage()
            let reopened = try Self.mount()
            let read = try made.read(reopened)
            let again = try reopened.usage()
            let ok = usage.segments == segments && usage.storedSightings == sightings && again == usage
                && reopened.recovery.isClean && read == ReadBack(first: flushes * batch - sightings, end: flushes * batch)
            return .success((ok, "\(what): \(usage.segments) segments and \(usage.storedSightings) sightings, "
                + "expected \(segments) and \(sightings); after mounting \(read), recovery \(reopened.recovery)"))
        } catch {
            return .success((false, "\(what): \(error)"))
        }
    }

    /// `storecut`: how many cut points (a case each) passed and failed, a FAIL line printed for each failure as it
    /// comes (two hundred lines kept would not fit beside the store), or a description of what is wrong with the line.
    mutating func cut(_ f: [String]) -> Result<(passed: Int, failed: Int), CaseLineError> {
        guard let seed = UInt64(f[0]), let flushes = Int(f[1]), let most = Int(f[2]),
              (1...Self.mostInFlush).contains(most) else { return .failure(CaseLineError("bad field")) }
        let what = "storecut \(seed) \(flushes) \(most)"
        mcu_flash_new_part()
        let made = CaseSightings(seed: seed)
        var sizes = SplitMix64(seed: ~seed)
        var appended = 0
        let before: ReadBack
        do throws(SystemError) {
            let store = try Self.mount()
            for _ in 0..<flushes {
                let end = appended + 1 + Int(sizes.next() % UInt64(most))
                for index in appended..<end { store.append(made.sighting(index)) }
                try store.flush()
                appended = end
            }
            before = try made.read(store)
        } catch {
            print("FAIL \(what): the flushes before the cut failed: \(error)")
            return .success((0, 1))
        }
        guard before.isWhole, before.end == appended else {
            print("FAIL \(what): before the cut \(before), \(appended) appended")
            return .success((0, 1))
        }
        let batch = appended..<appended + 1 + Int(sizes.next() % UInt64(most))
        let furtherCount = 1 + Int(sizes.next() % UInt64(most))
        mcu_flash_save()

        // The flush uncut: how many operations it takes, mounting included.
        let operationsBefore = mcu_flash_programs() &+ mcu_flash_erases()
        _ = Self.flush(batch, made)
        let operations = Int(mcu_flash_programs() &+ mcu_flash_erases() &- operationsBefore)

        var passed = 0, failed = 0
        func fail(_ why: String) {
            print("FAIL \(why)")
            failed += 1
        }
        for cutAt in 1...operations + 1 {
            mcu_flash_restore()
            if cutAt <= operations { mcu_flash_cut_after(UInt32(cutAt)) }
            let returned = Self.flush(batch, made)
            mcu_flash_power_on()
            cases += 1
            cuts += cutAt <= operations ? 1 : 0
            let at = "\(what): cut at operation \(cutAt) of \(operations)"
            do throws(SystemError) {
                let store = try Self.mount()
                let read = try made.read(store)
                // Whole sightings in order; the batch all there (then older ones may have gone to the budget), or,
                // when flush did not return, none of it and nothing else changed.
                let kept = read.isWhole && read.end == batch.upperBound && read.first >= before.first && read.first <= batch.lowerBound
                guard store.recovery.isClean, kept || (!returned && read == before) else {
                    fail("\(at): read \(read), before \(before), the flush's \(batch.lowerBound)..<\(batch.upperBound) (it "
                        + "\(returned ? "returned" : "threw")), recovery \(store.recovery)")
                    continue
                }
                // The next sightings carry on from what the store holds (the batch's indices again if it was lost).
                let further = read.end..<read.end + furtherCount
                for index in further { store.append(made.sighting(index)) }
                try store.flush()
                noteMemory()
                let after = try made.read(try Self.mount())
                let ok = after.isWhole && after.end == further.upperBound && after.first >= read.first
                    && after.first <= further.lowerBound && (read.first == read.end || after.first <= read.end)
                if ok { passed += 1 } else { fail("\(at): after a further flush and mounting, \(after)") }
            } catch {
                fail("\(at): after the cut: \(error)")
            }
        }
        return .success((passed, failed))
    }

    /// Mounts the part and flushes the sightings `indices`; whether `flush` returned (they are reported durable).
    private static func flush(_ indices: Range<Int>, _ made: CaseSightings) -> Bool {
        do throws(SystemError) {
            let store = try mount()
            for index in indices { store.append(made.sighting(index)) }
            try store.flush()
            return true
        } catch {
            return false
        }
    }

    private mutating func noteMemory() {
        stack = max(stack, Int(mcu_stack_peak()))
        heapInUse = max(heapInUse, Int(mcu_heap_in_use()))
    }
}

/// What a store gave back: the case's sightings `first..<end`, if each was the one made for its index and they
/// came in order without a gap (`isWhole`). Kept as a range, not a list: a thousand sightings do not fit beside
/// the store in 64 KB.
struct ReadBack: Equatable, CustomStringConvertible {
    var first = 0
    var end = 0
    var isWhole = true

    var description: String {
        isWhole ? (first == end ? "no sightings" : "sightings \(first)..<\(end)") : "damaged sightings (\(first)..<\(end))"
    }
}

/// The sightings of a case: the one for index i is made from the seed and i alone, and carries i in its RPI's
/// first four bytes, so a sighting read back is checked against the one made for it without keeping either.
struct CaseSightings {
    let seed: UInt64

    func sighting(_ index: Int) -> Sighting {
        var random = SplitMix64(seed: seed &* 0x1_0000_0001 &+ UInt64(index))
        var bytes: [UInt8] = [UInt8(truncatingIfNeeded: index), UInt8(truncatingIfNeeded: index >> 8),
                              UInt8(truncatingIfNeeded: index >> 16), UInt8(truncatingIfNeeded: index >> 24)]
        let words = (random.next(), random.next())
        for lane in 0..<8 { bytes.append(UInt8(truncatingIfNeeded: words.0 >> (8 * UInt64(lane)))) }
        for lane in 0..<4 { bytes.append(UInt8(truncatingIfNeeded: words.1 >> (8 * UInt64(lane)))) }
        let bits = random.next()
        let rssi = -30 - Int8(truncatingIfNeeded: bits % 70)
        // A second apart: a flush's batch spans under a minute, as a scan's.
        return Sighting(rpi: Bytes16(bytes)!, aem: AssociatedEncryptedMetadata(word: UInt32(truncatingIfNeeded: bits >> 8)),
                        firstSeen: 1_795_910_400 + Int64(index), rssiMax: rssi, rssiMean: rssi - Int8(bits >> 40 & 7),
                        reports: Int(1 + bits >> 48 % 20), secondsSincePreviousScan: 0)
    }

    /// Reads every sighting in `store`, oldest first, checking each against the one made for its index.
    func read(_ store: SightingStore) throws(SystemError) -> ReadBack {
        var result = ReadBack()
        var started = false
        try store.forEach { sighting in
            let index = sighting.rpi.withUnsafeBytes { Int($0[0]) | Int($0[1]) << 8 | Int($0[2]) << 16 | Int($0[3]) << 24 }
            if !started {
                (result.first, result.end, started) = (index, index, true)
            }
            if index != result.end || sighting != self.sighting(index) { result.isWhole = false }
            result.end = index + 1
            return .proceed
        }
        return result
    }
}
