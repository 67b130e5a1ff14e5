/// The scored exposure windows of one UTC day, summed overall and per report type (v2).
public struct DailySummary: Hashable, Sendable {
    public var date: UTCDay
    public var overall: ExposureSummaryData
    /// Only report types with a window that day; `summary(for:)` reads absent ones as zero.
    public var byReportType: [ReportType: ExposureSummaryData]

    public init(date: UTCDay, overall: ExposureSummaryData = .zero,
                byReportType: [ReportType: ExposureSummaryData] = [:]) {
        self.date = date
        self.overall = overall
        self.byReportType = byReportType
    }

    public func summary(for reportType: ReportType) -> ExposureSummaryData { byReportType[reportType] ?? .zero }

    /// Adds one window that survived the minimum score.
    public mutating func add(score: Double, weightedDuration: Double, reportType: ReportType) {
        overall.add(score: score, weightedDuration: weightedDuration)
        byReportType[reportType, default: .zero].add(score: score, weightedDuration: weightedDuration)
    }
}
