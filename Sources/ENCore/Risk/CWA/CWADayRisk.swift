/// One day's risk in the Corona-Warn-App's model: only days whose normalized time maps to a risk level have one.
public struct CWADayRisk: Hashable, Sendable {
    public var date: UTCDay
    /// The sum of the day's counted windows' normalized times, rounded half up to one decimal.
    public var normalizedTime: Double
    public var riskLevel: CWARiskLevel
    public var minimumDistinctEncountersWithLowRisk: Int
    public var minimumDistinctEncountersWithHighRisk: Int

    public func minimumDistinctEncounters(with level: CWARiskLevel) -> Int {
        level == .low ? minimumDistinctEncountersWithLowRisk : minimumDistinctEncountersWithHighRisk
    }
}
