/// Matches diagnosis keys, one at a time, against the stored sightings (SPEC §4).
///
/// Per key: one HKDF for the RPIK, one AES-ECB call for its RPIs, and a lookup for each in its day's
/// filter; only a key with a candidate hit pays for the AEMK and the AEM decryptions, and a key of a day
/// with no sightings near it pays for nothing. Keys stream through `match(_:)`, so memory is the index
/// plus the hits, whatever the size of the export.
public final class KeyMatcher {
    /// One stored sighting that a key's RPI explains, after every rule passed.
    public struct Hit: Hashable, Sendable {
        /// Position in the sightings the matcher was built with.
        public var sightingIndex: Int
        /// The interval the RPI belongs to (rsin + j).
        public var interval: ENIntervalNumber
        public var metadata: Metadata
        /// TX power minus the sighting's corrected mean RSSI, floored at 0 (`Sighting.attenuation(txPower:rssiCorrection:)`).
        public var attenuation: Int
    }

    public struct Statistics: Equatable, Sendable {
        public var keys = 0
        public var embargoed = 0
        /// Recursive (4) and revoked (5) keys never produce exposures.
        public var notReportable = 0
        public var tooOld = 0
        public var candidateHits = 0
        public var outsideTolerance = 0
        public var replayed = 0
        public var insaneTxPower = 0
        public var matchedKeys = 0
        public init() {}
    }

    public let sightings: [Sighting]
    public let rules: MatchingRules
    /// Counted for every key. Only `match` writes it, on the matcher's one thread, and never while it is read:
    /// the dynamic exclusivity check a class's stored property gets at each write (a runtime call per key) is
    /// left out.
    @exclusivity(unchecked) public private(set) var statistics = Statistics()
    /// The stored RPIs the keys are matched against (sightings older than the retention period, or too far
    /// ahead of now to match a usable key, left out).
    public let index: RPIIndex
    private let schedule: KeySchedule
    private let nowUnixSeconds: Int64
    /// First sighting time of each RPI, for the replay guard.
    private let firstSeenByRPI: [Bytes16: Int64]

    public init(sightings: [Sighting], now unixSeconds: Int64, rules: MatchingRules = MatchingRules(),
                schedule: KeySchedule) {
        let horizon = unixSeconds - rules.retentionSeconds
        self.sightings = sightings
        self.rules = rules
        self.schedule = schedule
        nowUnixSeconds = unixSeconds
        // A usable key's RPIs all belong to intervals before now, so a sighting later than the tolerance
        // after now matches none: left out, like those older than the retention period.
        let latest = unixSeconds + (rules.toleranceIntervals + 1) * ENIntervalNumber.secondsPerInterval
        index = RPIIndex(sightings.enumerated().lazy.compactMap { position, sighting in
            guard sighting.firstSeen >= horizon && sighting.firstSeen < latest, let seen = sighting.interval else { return nil }
            return (rpi: sighting.rpi, position: position, interval: seen)
        }, toleranceIntervals: rules.toleranceIntervals)
        // Sized once: growing by doubling rehashes each table into the next, and on a microcontroller the tables
        // left behind stay as gaps in its heap.
        var first: [Bytes16: Int64] = [:]
        first.reserveCapacity(sightings.count)
        for s in sightings { first[s.rpi] = min(first[s.rpi] ?? .max, s.firstSeen) }
        firstSeenByRPI = first
    }

    /// Whether `key` may not be matched yet: its embargo (SPEC §4) ends after the time this matcher matches at.
    public func isEmbargoed(_ key: DiagnosisKey) -> Bool { nowUnixSeconds < key.usableFromUnixSeconds }

    /// The hits of one key (empty for most keys), in sighting order.
    @_optimize(speed)  // the hot loop: ENCore is built for size, this is built for speed
    public func match(_ key: DiagnosisKey) -> [Hit] {
        statistics.keys += 1
        let tek = key.tek
        guard key.reportType != .recursive && key.reportType != .revoked else {
            statistics.notReportable += 1
            return []
        }
        guard !isEmbargoed(key) else {
            statistics.embargoed += 1
            return []
        }
        guard Int64(tek.rollingEnd) * ENIntervalNumber.secondsPerInterval >= nowUnixSeconds - rules.retentionSeconds else {
            statistics.tooOld += 1
            return []
        }
        let period = Int(min(max(tek.rollingPeriod, 1), ENIntervalNumber.intervalsPerDay))
        // No sighting near the key's day (the badge was off, or alone): no RPI to derive.
        guard index.filters.coversAny(from: tek.rollingStart, count: period) else { return [] }
        // A local array: empty costs nothing, and only a key with a stored RPI ever appends to it. (A stored
        // property would cost every key a dynamic exclusivity check around the screening loop.)
        var candidates: [(position: Int, j: Int)] = []
        schedule.withRPIs(rpik: schedule.rpik(tek.keyData), from: tek.rollingStart, count: period) { batch in
            index.forEachMatch(in: batch, count: period) { j, position in candidates.append((position: position, j: j)) }
        }
        guard !candidates.isEmpty else { return [] }
        statistics.candidateHits += candidates.count

        let aemk = schedule.aemk(tek.keyData)
        var hits: [Hit] = []
        for (position, j) in candidates {
            let s = sightings[position]
            let n = ENIntervalNumber(tek.rollingStart.value &+ UInt32(j))
            guard let seen = s.interval, abs(n.distance(to: seen)) <= rules.toleranceIntervals else {
                statistics.outsideTolerance += 1
                continue
            }
            if let first = firstSeenByRPI[s.rpi], s.firstSeen - first > rules.replayWindowSeconds {
                statistics.replayed += 1
                continue
            }
            let metadata = Metadata(schedule.aem(aemk: aemk, rpi: s.rpi, s.aem))
            guard rules.txPowerRange.contains(Int(metadata.txPower)) else {
                statistics.insaneTxPower += 1
                continue
            }
            hits.append(Hit(sightingIndex: position, interval: n, metadata: metadata,
                            attenuation: s.attenuation(txPower: metadata.txPower, rssiCorrection: rules.rssiCorrection)))
        }
        hits.sort { $0.sightingIndex < $1.sightingIndex }
        if !hits.isEmpty { statistics.matchedKeys += 1 }
        return hits
    }
}
