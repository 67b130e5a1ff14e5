/// Sums over the scored exposure windows of one day (all of them, or those of one report type).
public struct ExposureSummaryData: Hashable, Sendable {
    public var scoreSum: Double
    public var maximumScore: Double
    /// Σ over windows of Σ(secondsSinceLastScan × attenuation weight): seconds of exposure weighted by
    /// closeness only, without the report-type and infectiousness weights.
    public var weightedDurationSum: Double

    public static let zero = ExposureSummaryData(scoreSum: 0, maximumScore: 0, weightedDurationSum: 0)

    public init(scoreSum: Double, maximumScore: Double, weightedDurationSum: Double) {
        self.scoreSum = scoreSum
        self.maximumScore = maximumScore
        self.weightedDurationSum = weightedDurationSum
    }

    /// Adds one window.
    public mutating func add(score: Double, weightedDuration: Double) {
        scoreSum += score
        maximumScore = max(maximumScore, score)
        weightedDurationSum += weightedDuration
    }
}
