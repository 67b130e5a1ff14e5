/// The map from a key's days since symptom onset (−14…14) to infectiousness, with a value for every other key.
/// Apple's `infectiousnessForDaysSinceOnsetOfSymptoms`; the rule for values outside the map is Google's
/// (`ExposureWindowUtils.getInfectiousness`): such a key, like one without an onset, takes the default.
public struct InfectiousnessByDaysSinceOnset: Hashable, Sendable {
    public static let dayRange = -14...14

    /// Indexed by day + 14.
    private var byDay: [Infectiousness]
    /// For keys whose export gave no days since onset, or a value outside −14…14: the EU gateway's encodings
    /// (n·100 ± 14 for onset ranges, 2000 ± 14 unknown onset, 3000 ± 14 asymptomatic, 4000 ± 14 unknown
    /// status) say something other than a day, so they are scored as an unknown onset, as Google scores them.
    public var whenUnknown: Infectiousness

    /// Every day maps to `infectiousness`.
    public init(all infectiousness: Infectiousness, whenUnknown: Infectiousness) {
        byDay = Array(repeating: infectiousness, count: Self.dayRange.count)
        self.whenUnknown = whenUnknown
    }

    /// enbeacon's default, after the usual public-health reading of SARS-CoV-2 (infectious from about two days
    /// before symptom onset to ten days after, most so around onset):
    /// −14…−3 none, −2…+2 high, +3…+10 standard, +11…+14 none; unknown onset standard, since most exports
    /// leave the field out and dropping those keys would silence the system.
    public static let `default`: InfectiousnessByDaysSinceOnset = {
        var map = InfectiousnessByDaysSinceOnset(all: .none, whenUnknown: .standard)
        for day in -2...2 { map[day] = .high }
        for day in 3...10 { map[day] = .standard }
        return map
    }()

    /// Days outside −14…14 read as `whenUnknown`. Setting a day outside the range is a programming error.
    public subscript(day: Int) -> Infectiousness {
        get { Self.dayRange.contains(day) ? byDay[day - Self.dayRange.lowerBound] : whenUnknown }
        set {
            precondition(Self.dayRange.contains(day), "days since onset \(day) outside −14…14")
            byDay[day - Self.dayRange.lowerBound] = newValue
        }
    }

    /// The infectiousness for a key's days since onset as its export gave it, nil meaning not given.
    public func infectiousness(daysSinceOnset: Int?) -> Infectiousness {
        daysSinceOnset.map { self[$0] } ?? whenUnknown
    }
}
