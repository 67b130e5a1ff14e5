/// How the Corona-Warn-App turns a window's report type and infectiousness into a transmission risk level: the
/// sum of one offset for each (`trlEncoding` in its configuration). Phones' windows carry no transmission risk
/// level of their own since v2, so the app rebuilds one from what they do carry.
public struct CWATransmissionRiskLevelEncoding: Hashable, Sendable {
    public static let offsetRange = 0...100

    public var infectiousnessOffsetStandard: Int
    public var infectiousnessOffsetHigh: Int
    public var reportTypeOffsetRecursive: Int
    public var reportTypeOffsetSelfReport: Int
    public var reportTypeOffsetConfirmedClinicalDiagnosis: Int
    public var reportTypeOffsetConfirmedTest: Int

    public init(infectiousnessOffsetStandard: Int, infectiousnessOffsetHigh: Int, reportTypeOffsetRecursive: Int,
                reportTypeOffsetSelfReport: Int, reportTypeOffsetConfirmedClinicalDiagnosis: Int,
                reportTypeOffsetConfirmedTest: Int) {
        self.infectiousnessOffsetStandard = infectiousnessOffsetStandard
        self.infectiousnessOffsetHigh = infectiousnessOffsetHigh
        self.reportTypeOffsetRecursive = reportTypeOffsetRecursive
        self.reportTypeOffsetSelfReport = reportTypeOffsetSelfReport
        self.reportTypeOffsetConfirmedClinicalDiagnosis = reportTypeOffsetConfirmedClinicalDiagnosis
        self.reportTypeOffsetConfirmedTest = reportTypeOffsetConfirmedTest
    }

    /// Every offset is required: a missing one would silently be 0.
    init(_ object: ConfigurationObject) throws(RiskConfigurationError) {
        let range = Self.offsetRange
        self.init(infectiousnessOffsetStandard: try object.integer("infectiousnessOffsetStandard", in: range),
                  infectiousnessOffsetHigh: try object.integer("infectiousnessOffsetHigh", in: range),
                  reportTypeOffsetRecursive: try object.integer("reportTypeOffsetRecursive", in: range),
                  reportTypeOffsetSelfReport: try object.integer("reportTypeOffsetSelfReport", in: range),
                  reportTypeOffsetConfirmedClinicalDiagnosis:
                      try object.integer("reportTypeOffsetConfirmedClinicalDiagnosis", in: range),
                  reportTypeOffsetConfirmedTest: try object.integer("reportTypeOffsetConfirmedTest", in: range))
    }

    /// Nil for the report types no window is scored with: unknown (phones map it through their
    /// `reportTypeNoneMap` before reporting a window) and revoked. Infectiousness other than high counts as
    /// standard, as in the app.
    public func transmissionRiskLevel(reportType: ReportType, infectiousness: Infectiousness) -> Int? {
        let reportTypeOffset: Int
        switch reportType {
        case .recursive: reportTypeOffset = reportTypeOffsetRecursive
        case .selfReport: reportTypeOffset = reportTypeOffsetSelfReport
        case .confirmedClinicalDiagnosis: reportTypeOffset = reportTypeOffsetConfirmedClinicalDiagnosis
        case .confirmedTest: reportTypeOffset = reportTypeOffsetConfirmedTest
        case .unknown, .revoked: return nil
        }
        let infectiousnessOffset = infectiousness == .high ? infectiousnessOffsetHigh : infectiousnessOffsetStandard
        return reportTypeOffset + infectiousnessOffset
    }
}
