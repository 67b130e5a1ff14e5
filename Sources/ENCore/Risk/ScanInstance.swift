/// The sightings of one key in one scan, reduced to what scoring weighs: how strong and how long.
///
/// Both v1 and v2 score scan instances rather than raw sightings, so that one scan counts once even when it
/// holds two sightings of the same key (the sender rotated its RPI mid-scan, or two scans ran back to back).
/// v2's instances are formed inside their windows as Google's reference forms them (`ExposureWindowFormation`);
/// `group` below is v1's own grouping, which Google's v1 has no counterpart of (it weighs sightings, not instances).
///
/// v1's definitions (SPEC §5 fixes the numbers; the anchoring and rounding are enbeacon's):
/// - Grouping: sightings sorted by time; a sighting joins the current instance when it is at most 25.5 s after
///   the instance's *first* sighting, otherwise it starts a new one. Anchoring at the first sighting rather than
///   chaining from the last keeps an instance within one scan's span even under continuous scanning.
/// - `typicalAttenuation`: the mean of the sightings' attenuations, rounded half up.
/// - `minAttenuation`: the least of the sightings' minimum attenuations.
/// - `secondsSinceLastScan`: the time this instance stands for. From the first sighting's
///   `secondsSincePreviousScan` s: unknown (0) → 120; otherwise 60 × (s / 60 rounded half up to whole minutes,
///   at least 1), capped at 300. The floor of one minute is there because a scan that heard the key must stand
///   for some time; without it a scan 20 s after the previous one would weigh nothing.
public struct ScanInstance: Hashable, Sendable {
    /// Unix seconds of the instance's first sighting.
    public var time: Int64
    public var typicalAttenuation: UInt8
    public var minAttenuation: UInt8
    /// A multiple of 60: in 60…300 from `group`, 0…300 from `ExposureWindowFormation`; whatever a phone reported when read from its
    /// API's JSON (`ExposureWindowsJSON`), even 0 or negative after a clock change (the Corona-Warn-App model counts those as 0).
    public var secondsSinceLastScan: Int

    public static let maximumSpreadTenthsOfSeconds: Int64 = 255
    public static let secondsWhenPreviousScanUnknown = 120
    public static let maximumSecondsSinceLastScan = 300

    public init(time: Int64, typicalAttenuation: UInt8, minAttenuation: UInt8, secondsSinceLastScan: Int) {
        self.time = time
        self.typicalAttenuation = typicalAttenuation
        self.minAttenuation = minAttenuation
        self.secondsSinceLastScan = secondsSinceLastScan
    }

    /// The scan instances of `sightings` (any order), oldest first.
    public static func group(_ sightings: [MatchedSighting]) -> [ScanInstance] {
        let sorted = sightings.enumerated()
            .sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }
            .map { $0.element }
        var instances: [ScanInstance] = []
        var current: [MatchedSighting] = []
        for sighting in sorted {
            if let first = current.first, (sighting.time - first.time) * 10 > maximumSpreadTenthsOfSeconds {
                instances.append(ScanInstance(of: current))
                current.removeAll(keepingCapacity: true)
            }
            current.append(sighting)
        }
        if !current.isEmpty { instances.append(ScanInstance(of: current)) }
        return instances
    }

    /// One instance from a non-empty group of sightings, oldest first.
    init(of group: [MatchedSighting]) {
        let total = group.reduce(0) { $0 + Int($1.attenuation) }
        self.init(time: group[0].time,
                  typicalAttenuation: UInt8((2 * total + group.count) / (2 * group.count)),
                  minAttenuation: group.map { $0.minimumAttenuation }.min()!,
                  secondsSinceLastScan: Self.secondsSinceLastScan(recorded: group[0].secondsSincePreviousScan))
    }

    /// The time a scan stands for, from the scanner's record of the gap before it (see the type's comment).
    public static func secondsSinceLastScan(recorded seconds: UInt16) -> Int {
        guard seconds > 0 else { return secondsWhenPreviousScanUnknown }
        let minutes = max(1, (Int(seconds) + 30) / 60)
        return min(60 * minutes, maximumSecondsSinceLastScan)
    }
}
