import ENCore
/// The rhythm of a badge's day as the scan scheduler makes it: a scan every 210–300 s (4 s long), each
/// bringing its share of the day's sightings at once when its window closes. Deterministic.
///
/// This is what makes one record per flush carry many sightings: with 5,000 a day, a scan brings ~15.
struct SyntheticScanSchedule: Sequence, IteratorProtocol {
    /// One scan: when it began, and the numbers of the sightings it brought.
    struct Scan {
        var start: Int64
        var sightings: Range<Int>
    }

    static let scanDuration: Int64 = 4
    let start: Int64
    let end: Int64
    let totalSightings: Int
    private var nextScan: Int64
    private var emitted = 0
    private var jitter = SplitMix64(seed: 42)

    init(start: Int64, days: Int, sightingsPerDay: Int) {
        self.start = start
        end = start + Int64(days) * 86_400
        totalSightings = sightingsPerDay * days
        nextScan = start
    }

    mutating func next() -> Scan? {
        guard nextScan < end else { return nil }
        let scan = nextScan
        nextScan += 210 + Int64(jitter.next() % 91)
        // The sightings due by the end of this scan, spread evenly over the days.
        let due = nextScan >= end ? totalSightings
            : Int(Int64(totalSightings) * (scan + Self.scanDuration - start) / (end - start))
        defer { emitted = due }
        return Scan(start: scan, sightings: emitted..<due)
    }
}
