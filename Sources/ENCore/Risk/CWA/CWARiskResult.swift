/// The Corona-Warn-App's answer for a set of exposure windows: what its risk card shows, and the steps behind it.
public struct CWARiskResult: Hashable, Sendable {
    /// Each window's outcome, in the order the windows were given.
    public var windows: [CWAWindowOutcome]
    /// The days with a risk level, oldest first.
    public var days: [CWADayRisk]

    public init(windows: [CWAWindowOutcome], days: [CWADayRisk]) {
        self.windows = windows
        self.days = days
    }

    /// High when any day is high; low otherwise, including when no window counted at all.
    public var totalRiskLevel: CWARiskLevel { days.contains { $0.riskLevel == .high } ? .high : .low }

    public func mostRecentDate(with level: CWARiskLevel) -> UTCDay? {
        days.filter { $0.riskLevel == level }.map { $0.date }.max()
    }

    public func numberOfDays(with level: CWARiskLevel) -> Int { days.count(where: { $0.riskLevel == level }) }

    /// Summed over the days with a risk level, whatever that level: a low-risk window on a high-risk day still
    /// counts as a low-risk encounter.
    public func totalMinimumDistinctEncounters(with level: CWARiskLevel) -> Int {
        days.reduce(0) { $0 + $1.minimumDistinctEncounters(with: level) }
    }
}
