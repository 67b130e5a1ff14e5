/// A Temporary Exposure Key published by a health authority, with what risk scoring needs of it.
public struct DiagnosisKey: Hashable, Sendable {
    public var tek: TemporaryExposureKey
    public var transmissionRiskLevel: Int
    public var reportType: ReportType
    /// As the export gave it, whatever its value (see `KeyRejection`); nil when absent.
    public var daysSinceOnsetOfSymptoms: Int?

    public init(tek: TemporaryExposureKey, transmissionRiskLevel: Int = 0, reportType: ReportType = .confirmedTest,
                daysSinceOnsetOfSymptoms: Int? = nil) {
        self.tek = tek
        self.transmissionRiskLevel = transmissionRiskLevel
        self.reportType = reportType
        self.daysSinceOnsetOfSymptoms = daysSinceOnsetOfSymptoms
    }

    /// The first moment a key may be used: 2 hours after its validity ended (SPEC §4's embargo).
    public var usableFromUnixSeconds: Int64 {
        (Int64(tek.rollingStart.value) + Int64(tek.rollingPeriod) + 12) * ENIntervalNumber.secondsPerInterval
    }
}
