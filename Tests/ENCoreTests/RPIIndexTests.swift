import Testing
@testable import ENCore

/// The two stages of the matcher's index: the filter must never lose a stored RPI (a lost one is a missed
/// exposure), and the screening of a key's RPIs must report exactly the stored ones, in order.
@Suite struct RPIIndexTests {
    static func randomRPIs(_ count: Int, seed: UInt64) -> [Bytes16] {
        var rng = SplitMix64(seed: seed)
        return (0..<count).map { _ in Bytes16(low: rng.next(), high: rng.next()) }
    }

    /// The first interval of a day: a batch from here has all its RPIs on that day.
    static let day = ENIntervalNumber(19_445 * 144)

    /// An index of `rpis`, each seen at midday of `day` unless `seen` says otherwise.
    static func index(_ rpis: [Bytes16], seen: [ENIntervalNumber]? = nil) -> RPIIndex {
        RPIIndex(rpis.enumerated().map {
            (rpi: $0.element, position: $0.offset, interval: seen?[$0.offset] ?? ENIntervalNumber(day.value + 72))
        }, toleranceIntervals: MatchingRules().toleranceIntervals)
    }

    /// Whether the filter of `day` lets `rpi` through.
    static func mayContain(_ index: RPIIndex, _ rpi: Bytes16) -> Bool { index.filters.mayContain(rpi, at: day) }

    /// Calls `body` with a batch of `rpis` from interval `start` on, laid out as `KeySchedule.withRPIs` lays them out.
    static func withBatch<R>(_ rpis: [Bytes16], start: ENIntervalNumber = day, _ body: (RPIBatch) -> R) -> R {
        var bytes: [UInt8] = []
        for rpi in rpis { bytes += rpi.bytes }
        return bytes.withUnsafeBytes { body(RPIBatch(start: start, blocks: $0)) }
    }

    static func matches(_ index: RPIIndex, _ rpis: [Bytes16], start: ENIntervalNumber = day, count: Int? = nil) -> [[Int]] {
        withBatch(rpis, start: start) { batch in
            var found: [[Int]] = []
            index.forEachMatch(in: batch, count: count ?? rpis.count) { found.append([$0, $1]) }
            return found
        }
    }

    @Test(arguments: [0, 1, 2, 1_000, 20_000, 200_000])
    func noStoredRPIIsEverFilteredOut(count: Int) {
        let stored = Self.randomRPIs(count, seed: UInt64(count) &+ 11)
        let index = Self.index(stored)
        #expect(index.count == count)
        #expect(stored.allSatisfy { Self.mayContain(index, $0) })
        // Through the screening loop too, in batches of 144 as a key's RPIs come.
        var j = 0
        while j < stored.count {
            let batch = Array(stored[j..<min(j + 144, stored.count)])
            let found = Self.matches(index, batch)
            #expect(found == batch.indices.map { [$0, j + $0] }, "batch at \(j)")
            j += 144
        }
        // The filter's memory is bounded by the number of RPIs, never by a fixed table.
        #expect(index.filters.byteCount <= max(1, count) * 8 + 4096)
    }

    /// A filter is a value, though its lookups read its words through plain pointers: inserting into a copy
    /// leaves the original as it was.
    @Test func aFilterIsAValue() {
        let rpis = Self.randomRPIs(50, seed: 9)
        var original = RPIFilter(capacity: 100)
        for rpi in rpis.prefix(25) { original.insert(rpi) }
        var copy = original
        for rpi in rpis.suffix(25) { copy.insert(rpi) }
        #expect(rpis.allSatisfy(copy.mayContain))
        #expect(rpis.prefix(25).allSatisfy(original.mayContain))
        #expect(!rpis.suffix(25).allSatisfy(original.mayContain))
    }

    @Test func anEmptyIndexLetsNothingThrough() {
        let index = Self.index([])
        let probes = Self.randomRPIs(10_000, seed: 5)
        #expect(!probes.contains { Self.mayContain(index, $0) })
        #expect(Self.matches(index, Array(probes.prefix(144))).isEmpty)
    }

    /// Every RPI of a batch is checked, whatever its place: the first and the last, neighbours (the scan
    /// resumes right after a hit), and only the first `count` (a key with a rolling period under 144).
    @Test(arguments: [0, 1, 15, 16, 17, 30, 143, 144])
    func screeningReportsStoredRPIsAtEveryPlaceInOrder(count: Int) {
        let stored = Self.randomRPIs(20_000, seed: 3)
        let index = Self.index(stored)
        var batch = Self.randomRPIs(144, seed: 4)
        let planted = [0, 5, 15, 16, 29, 31, 100, 142, 143]
        for (n, j) in planted.enumerated() { batch[j] = stored[n * 1_000] }
        let expected = planted.enumerated().filter { $0.element < count }.map { [$0.element, $0.offset * 1_000] }
        #expect(Self.matches(index, batch, count: count) == expected)
    }

    /// The prefix table has a bucket per RPI on average, 2^8 to 2^16 of them: a few hundred RPIs sharing their
    /// leading byte, so one bucket of a small table, are each found at their own positions, an absent RPI of
    /// the same bucket is not, and the table is small (a wristband's RAM), while 40,000 RPIs get the full one.
    @Test func aSmallIndexHasASmallTableAndFindsEveryRPI() {
        var stored = Self.randomRPIs(300, seed: 12)
        for i in stored.indices { stored[i].withUnsafeMutableBytes { $0[0] = 0xA7 } }
        let index = Self.index(stored)
        for (position, rpi) in stored.enumerated() {
            var positions: [Int] = []
            index.forEachPosition(of: rpi) { positions.append($0) }
            #expect(positions == [position])
        }
        var absent = Self.randomRPIs(1, seed: 13)[0]
        absent.withUnsafeMutableBytes { $0[0] = 0xA7 }
        var found = 0
        index.forEachPosition(of: absent) { _ in found += 1 }
        #expect(found == 0)
        #expect(index.byteCount - index.filters.byteCount == 300 * 20 + (512 + 1) * 4)
        let large = Self.index(Self.randomRPIs(40_000, seed: 14))
        #expect(large.byteCount - large.filters.byteCount == 40_000 * 20 + 65_537 * 4)
    }

    @Test func everySightingOfARepeatedRPIIsFound() {
        var stored = Self.randomRPIs(500, seed: 8)
        let repeated = stored[42]
        for position in [7, 300, 499] { stored[position] = repeated }
        let index = Self.index(stored)
        var positions: [Int] = []
        index.forEachPosition(of: repeated) { positions.append($0) }
        #expect(positions == [7, 42, 300, 499])
        var batch = Self.randomRPIs(144, seed: 9)
        batch[77] = repeated
        #expect(Self.matches(index, batch) == [[77, 7], [77, 42], [77, 300], [77, 499]])
    }

    /// Each RPI of a batch is tested against the filter of its own day, which holds the RPIs seen that day
    /// or within the tolerance (12 intervals) of it: a batch across midnight finds the RPIs seen on either
    /// side, and those seen across midnight within the tolerance.
    @Test func eachRPIIsTestedAgainstTheFilterOfItsDay() {
        let stored = Self.randomRPIs(6, seed: 31)
        let midnight = Self.day.value + 144
        let seen = [midnight - 60, midnight + 60, midnight - 60, midnight + 5, midnight - 12, midnight - 13]
        let index = Self.index(stored, seen: seen.map(ENIntervalNumber.init))
        var batch = Self.randomRPIs(144, seed: 32)
        // The batch starts 72 intervals before midnight: RPI j is derived for interval midnight − 72 + j.
        for (position, j) in [(0, 10), (1, 130), (2, 100), (3, 70), (4, 83), (5, 72)] { batch[j] = stored[position] }
        #expect(Self.matches(index, batch, start: ENIntervalNumber(midnight - 72)) == [[10, 0], [70, 3], [83, 4], [130, 1]],
                "seen the day before and 88 intervals away (2), or 13 intervals before midnight (5): not tested")
        #expect(index.filters.dayCount == 2)
    }

    /// A key of a day with no sighting near it needs no RPIs at all: the matcher skips it whole.
    @Test func onlyDaysWithSightingsNearThemAreCovered() {
        let index = Self.index(Self.randomRPIs(10, seed: 41))
        #expect(index.filters.coversAny(from: Self.day, count: 144))
        #expect(index.filters.coversAny(from: ENIntervalNumber(Self.day.value - 1), count: 2), "the last interval of the day before, and this day's first")
        #expect(!index.filters.coversAny(from: ENIntervalNumber(Self.day.value - 1), count: 1))
        #expect(!index.filters.coversAny(from: ENIntervalNumber(Self.day.value + 144), count: 144))
        #expect(!Self.index([]).filters.coversAny(from: Self.day, count: 144))
    }

    /// Not a timing: the rate is a property of the layout, fixed by the seeds. `bench match` prints the
    /// rate it measures at the sizes it runs.
    @Test(arguments: [20_000, 200_000])
    func falsePositivesStayRare(count: Int) {
        let index = Self.index(Self.randomRPIs(count, seed: 21))
        let probes = Self.randomRPIs(200_000, seed: 22)
        let passed = probes.count(where: { Self.mayContain(index, $0) })
        print("RPIFilter at \(count) RPIs: \(passed) of \(probes.count) random RPIs let through, "
              + "\(index.filters.byteCount) bytes")
        #expect(passed < probes.count / 500, "more than 0.2 % false positives")
    }
}
