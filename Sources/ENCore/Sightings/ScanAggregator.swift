/// Collects the reports of one scan and turns them into one `Sighting` per (RPI, AEM).
///
/// A 4-second scan hears a phone advertising every 250 ms about sixteen times (Bumble-style controllers
/// report each twice): storing one aggregate instead of every report is what keeps two weeks of a busy
/// care home within a couple of megabytes. Pure: times come in as Unix seconds.
public struct ScanAggregator: Sendable {
    private struct Accumulator: Sendable {
        var firstSeen: Int64
        var rssiMax: Int8?
        var rssiSum: Int
        var rssiCount: Int
        var count: Int
    }

    private var order: [Key] = []
    private var accumulators: [Key: Accumulator] = [:]
    /// Bounded: a hostile crowd of advertisers cannot grow a scan's state without limit.
    public let maximumDistinct: Int
    /// Beacons past the cap are remembered only by a hash, and only this many of them: enough to count a
    /// flood exactly, bounded so that counting it costs at most a few hundred KB.
    public let maximumCounted: Int
    /// The hashes of the beacons not kept: a phone is heard about sixteen times a scan, so counting reports
    /// would tell staff of a flood sixteen times larger than it was.
    private var droppedBeacons: Set<Int> = []
    /// Reports of beacons past the cap once `maximumCounted` of them were counted.
    private var uncounted = 0

    /// Beacons not kept because the scan already held `maximumDistinct`: exact up to `maximumCounted`
    /// beacons, and beyond that at least this many (each further report counts as one).
    public var dropped: Int { droppedBeacons.count + uncounted }

    private struct Key: Hashable, Sendable {
        var rpi: Bytes16
        var aem: AssociatedEncryptedMetadata
    }

    public init(maximumDistinct: Int = 4096) {
        self.maximumDistinct = maximumDistinct
        maximumCounted = max(4 * maximumDistinct, 16_384)
    }

    public var isEmpty: Bool { order.isEmpty }

    /// One report; `rssi` nil when the controller had none.
    public mutating func add(rpi: Bytes16, aem: AssociatedEncryptedMetadata, rssi: Int8?, at unixSeconds: Int64) {
        let key = Key(rpi: rpi, aem: aem)
        if var a = accumulators[key] {
            a.count += 1
            if let rssi {
                a.rssiMax = max(a.rssiMax ?? rssi, rssi)
                a.rssiSum += Int(rssi)
                a.rssiCount += 1
            }
            accumulators[key] = a
            return
        }
        guard order.count < maximumDistinct else {
            if droppedBeacons.count < maximumCounted {
                droppedBeacons.insert(key.hashValue)
            } else if !droppedBeacons.contains(key.hashValue) {
                uncounted += 1
            }
            return
        }
        order.append(key)
        accumulators[key] = Accumulator(firstSeen: unixSeconds, rssiMax: rssi, rssiSum: Int(rssi ?? 0),
                                        rssiCount: rssi == nil ? 0 : 1, count: 1)
    }

    /// The scan's sightings in order of first report, and a fresh aggregator for the next scan.
    /// Sightings whose every report lacked RSSI have no `signal`.
    public mutating func finish(secondsSincePreviousScan: UInt16) -> [Sighting] {
        defer {
            order.removeAll(keepingCapacity: true)
            accumulators.removeAll(keepingCapacity: true)
            droppedBeacons.removeAll()
            uncounted = 0
        }
        return order.map { key in
            let a = accumulators[key]!
            let signal = a.rssiMax.map { SignalStrength(max: $0, mean: Int8(roundedDivision(a.rssiSum, a.rssiCount))) }
            return Sighting(rpi: key.rpi, aem: key.aem, firstSeen: a.firstSeen, signal: signal, reports: a.count,
                            secondsSincePreviousScan: Int(secondsSincePreviousScan))
        }
    }

    /// Integer division rounding half away from zero (RSSI means are negative).
    private func roundedDivision(_ a: Int, _ b: Int) -> Int {
        a >= 0 ? (a + b / 2) / b : -((-a + b / 2) / b)
    }
}
