/// The stored RPIs in two stages: filters by day (`RPIFiltersByDay`) that rule out almost every RPI a key
/// derives, and for the few they let through, the RPIs sorted, with a table from each prefix of their leading
/// bits to its run in the sorted array (one table read and a few 16-byte compares). The prefix has as many bits
/// as give every RPI a bucket of its own on average, 8 to 16: 65,536 entries (256 KB) from 32,769 RPIs on, as a
/// badge's fortnight of sightings needs, and 2 KB for a wristband's day of a few hundred. Built once per
/// matching pass from the sightings; the diagnosis keys stream past it.
public struct RPIIndex: Sendable {
    /// Sorted RPIs and, in the same order, the position of their sighting in the caller's list.
    private let rpis: [Bytes16]
    private let positions: [UInt32]
    /// `starts[p] ..< starts[p + 1]` is the run of RPIs whose leading bits are `p`: their first two bytes, shifted
    /// right by `prefixShift`.
    private let starts: [UInt32]
    private let prefixShift: Int
    public let filters: RPIFiltersByDay

    public var count: Int { rpis.count }

    /// Memory held by the index: filters, sorted RPIs, their positions and the prefix table.
    public var byteCount: Int { filters.byteCount + rpis.count * 16 + positions.count * 4 + starts.count * 4 }

    /// `entries`: each stored RPI, the position of its sighting, and the interval it was seen in.
    public init(_ entries: some Sequence<(rpi: Bytes16, position: Int, interval: ENIntervalNumber)>,
                toleranceIntervals: Int64) {
        var pairs = entries.map { (prefix: $0.rpi.prefix16, rpi: $0.rpi, position: UInt32($0.position), interval: $0.interval) }
        pairs.sort { a, b in
            if a.prefix != b.prefix { return a.prefix < b.prefix }
            if a.rpi.high != b.rpi.high { return a.rpi.high < b.rpi.high }
            if a.rpi.low != b.rpi.low { return a.rpi.low < b.rpi.low }
            return a.position < b.position
        }
        rpis = pairs.map { $0.rpi }
        positions = pairs.map { $0.position }
        var bits = 8
        while bits < 16 && 1 << bits < pairs.count { bits += 1 }
        let shift = 16 - bits
        var starts = [UInt32](repeating: 0, count: (1 << bits) + 1)
        for p in pairs { starts[Int(p.prefix) >> shift + 1] += 1 }
        for i in 1..<starts.count { starts[i] += starts[i - 1] }
        self.starts = starts
        prefixShift = shift
        filters = RPIFiltersByDay(pairs.lazy.map { (rpi: $0.rpi, interval: $0.interval) },
                                  toleranceIntervals: toleranceIntervals)
    }

    /// Calls `found(j, position)` for every RPI j of `batch` (j < `count`) and every stored sighting of it,
    /// in order of j. Each RPI is screened by the filter of its interval's day; only the few a filter lets
    /// through (under 0.1 % of other people's RPIs) are looked up in the sorted array. An RPI stored only
    /// on days too far from j's to match is not reported.
    @inline(__always)
    public func forEachMatch(in batch: RPIBatch, count: Int, _ found: (_ j: Int, _ position: Int) -> Void) {
        precondition(count >= 0 && count <= batch.count)
        let blocks = batch.blocks
        let perDay = ENIntervalNumber.intervalsPerDay
        var dayStart = 0
        while dayStart < count {
            // The batch's RPIs of one day: to the day's last interval, or to the batch's end.
            let interval = ENIntervalNumber(batch.start.value &+ UInt32(dayStart))
            let dayEnd = min(count, dayStart &+ Int(perDay &- interval.value % perDay))
            if let probe = filters.probe(containing: interval) {
                var next = dayStart
                while true {
                    let j = probe.firstCovered(blocks, from: next, to: dayEnd)
                    guard j < dayEnd else { break }
                    forEachPosition(of: batch[j]) { found(j, $0) }
                    next = j &+ 1
                }
            }
            dayStart = dayEnd
        }
    }

    /// Calls `found` with the position of every stored sighting of `rpi`.
    @inline(__always)
    public func forEachPosition(of rpi: Bytes16, _ found: (Int) -> Void) {
        let p = Int(rpi.prefix16) &>> prefixShift
        var i = Int(starts[p])
        let end = Int(starts[p + 1])
        while i < end {
            if rpis[i] == rpi { found(Int(positions[i])) }
            i += 1
        }
    }
}
