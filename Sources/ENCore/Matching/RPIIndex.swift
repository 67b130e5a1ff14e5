/// The stored RPIs, sorted, with a 65,536-entry table from each 16-bit prefix to its run in the sorted
/// array: a lookup is one table read and, almost always, zero or one 16-byte compare. Built once per
/// matching pass from the sightings; the diagnosis keys stream past it.
public struct RPIIndex: Sendable {
    /// Sorted RPIs and, in the same order, the position of their sighting in the caller's list.
    private let rpis: [Bytes16]
    private let positions: [UInt32]
    /// `starts[p] ..< starts[p + 1]` is the run of RPIs whose first two bytes are `p`.
    private let starts: [UInt32]

    public var count: Int { rpis.count }

    public init(_ entries: some Sequence<(rpi: Bytes16, position: Int)>) {
        var pairs = entries.map { (prefix: $0.rpi.prefix16, rpi: $0.rpi, position: UInt32($0.position)) }
        pairs.sort { a, b in
            if a.prefix != b.prefix { return a.prefix < b.prefix }
            if a.rpi.high != b.rpi.high { return a.rpi.high < b.rpi.high }
            if a.rpi.low != b.rpi.low { return a.rpi.low < b.rpi.low }
            return a.position < b.position
        }
        rpis = pairs.map(\.rpi)
        positions = pairs.map(\.position)
        var starts = [UInt32](repeating: 0, count: 65_537)
        for p in pairs { starts[Int(p.prefix) + 1] += 1 }
        for i in 1..<starts.count { starts[i] += starts[i - 1] }
        self.starts = starts
    }

    /// Calls `found` with the position of every stored sighting of `rpi`.
    @inline(__always)
    public func forEachPosition(of rpi: Bytes16, _ found: (Int) -> Void) {
        let p = Int(rpi.prefix16)
        var i = Int(starts[p])
        let end = Int(starts[p + 1])
        while i < end {
            if rpis[i] == rpi { found(Int(positions[i])) }
            i += 1
        }
    }

    /// Whether any stored RPI shares the 16-bit prefix: the cheap first test in the hot loop.
    @inline(__always)
    public func mayContain(prefix: UInt16) -> Bool {
        starts[Int(prefix)] != starts[Int(prefix) + 1]
    }
}
