/// One v1 exposure: a run of scan instances of one diagnosis key with no gap over ten minutes, scored.
public struct ExposureV1: Hashable, Sendable {
    /// The UTC day of the key's rolling start, from which days since exposure are counted.
    public var date: UTCDay
    /// The time the exposure's scans stand for, rounded to a multiple of 5 minutes (not capped: > 30 is a bucket).
    public var durationMinutes: Int
    /// Minutes at `A ≤ t0`, `t0 < A ≤ t1` and `A > t1`, each rounded to 5 minutes like the duration, then
    /// capped at 30.
    public var attenuationDurations: [Int]
    /// The time-weighted mean of the scan instances' typical attenuations, dB.
    public var typicalAttenuation: UInt8
    /// The key's level as scored, i.e. clamped into 0–7.
    public var transmissionRiskLevel: Int
    /// 0–4096; 0 when the product fell below the configuration's minimum.
    public var riskScore: Int
    public var reportType: ReportType

    public init(date: UTCDay, durationMinutes: Int, attenuationDurations: [Int], typicalAttenuation: UInt8,
                transmissionRiskLevel: Int, riskScore: Int, reportType: ReportType) {
        self.date = date
        self.durationMinutes = durationMinutes
        self.attenuationDurations = attenuationDurations
        self.typicalAttenuation = typicalAttenuation
        self.transmissionRiskLevel = transmissionRiskLevel
        self.riskScore = riskScore
        self.reportType = reportType
    }
}
