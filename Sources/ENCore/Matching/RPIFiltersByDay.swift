/// The stored RPIs' filters, one per UTC day (interval number / 144).
///
/// A key's RPI for interval N can only match a sighting within the tolerance of N (SPEC §4), so it is
/// tested against the filter of N's day alone, which holds the RPIs seen that day or within the
/// tolerance of it. A badge's store spans 14 days, so each filter holds about a twelfth of the RPIs
/// (those seen near midnight go into two): at 200,000 sightings a key probes 128 KiB that stay in the
/// cache rather than 1 MiB that do not, and on a day when nobody was near the badge, it probes nothing.
public struct RPIFiltersByDay: Sendable {
    /// `filters[d − firstDay]` is day d's filter, nil when no RPI was seen within the tolerance of day d.
    private let filters: [RPIFilter?]
    /// `probes[d − firstDay]` is `filters[d − firstDay]`'s lookup, kept beside it as plain values: the screening
    /// loop reads one without copying the filter (which would retain and release its words, for every key).
    /// The filters are never written after `init`, so the lookups stay valid as long as they do.
    private let probes: [RPIFilter.Probe?]
    private let firstDay: Int

    /// Memory held by the filters, their shared pattern tables included.
    public var byteCount: Int { filters.reduce(RPIFilter.patternByteCount) { $0 + ($1?.byteCount ?? 0) } }

    /// The days that have a filter.
    public var dayCount: Int { filters.count { $0 != nil } }

    /// The intervals of `rpis` must span a bounded time (the matcher passes the retention period): the table has an
    /// entry for every day between the first and the last.
    public init(_ rpis: some Collection<(rpi: Bytes16, interval: ENIntervalNumber)>, toleranceIntervals: Int64) {
        guard let firstSeen = rpis.min(by: { $0.interval < $1.interval })?.interval,
              let lastSeen = rpis.max(by: { $0.interval < $1.interval })?.interval else {
            (filters, probes, firstDay) = ([], [], 0)
            return
        }
        let firstDay = Self.days(near: firstSeen, toleranceIntervals).lowerBound
        let lastDay = Self.days(near: lastSeen, toleranceIntervals).upperBound
        var counts = [Int](repeating: 0, count: lastDay - firstDay + 1)
        for entry in rpis {
            for day in Self.days(near: entry.interval, toleranceIntervals) { counts[day - firstDay] += 1 }
        }
        var filters = counts.map { $0 == 0 ? nil : RPIFilter(capacity: $0) }
        for entry in rpis {
            for day in Self.days(near: entry.interval, toleranceIntervals) { filters[day - firstDay]!.insert(entry.rpi) }
        }
        (self.filters, self.firstDay) = (filters, firstDay)
        probes = filters.map { $0?.probe }
    }

    /// The days whose RPIs an RPI seen in `interval` may match: those of `interval` ± the tolerance.
    static func days(near interval: ENIntervalNumber, _ toleranceIntervals: Int64) -> ClosedRange<Int> {
        let n = Int64(interval.value)
        let perDay = Int64(ENIntervalNumber.intervalsPerDay)
        return Int(max(0, n - toleranceIntervals) / perDay)
            ... Int(min(Int64(UInt32.max), n + toleranceIntervals) / perDay)
    }

    /// Where the day containing `interval` is in `filters` and `probes`, if the table reaches it.
    @inline(__always)
    private func slot(containing interval: ENIntervalNumber) -> Int? {
        let i = Int(interval.value / ENIntervalNumber.intervalsPerDay) &- firstDay
        return i >= 0 && i < filters.count ? i : nil
    }

    /// The filter for the RPIs of the day containing `interval`; nil when no stored RPI can match any of them.
    public func filter(containing interval: ENIntervalNumber) -> RPIFilter? {
        slot(containing: interval).flatMap { filters[$0] }
    }

    /// The lookup of that filter, for the screening loop, `coversAny` and `mayContain`.
    @inline(__always)
    func probe(containing interval: ENIntervalNumber) -> RPIFilter.Probe? {
        slot(containing: interval).flatMap { probes[$0] }
    }

    /// Whether any stored RPI can match an RPI of the `count` intervals from `start` (at most a day's, so
    /// they touch two days at most).
    public func coversAny(from start: ENIntervalNumber, count: Int) -> Bool {
        guard count > 0 else { return false }
        let last = ENIntervalNumber(start.value &+ UInt32(count - 1))
        return probe(containing: start) != nil || probe(containing: last) != nil
    }

    /// Whether `rpi`, derived for `interval`, may be stored: false means it is not.
    public func mayContain(_ rpi: Bytes16, at interval: ENIntervalNumber) -> Bool {
        rpi.withUnsafeBytes { raw in probe(containing: interval)?.covers(raw, 0) ?? false }
    }
}
