/// Up to 30 minutes of scan instances of one diagnosis key (v2): the unit a score is given to.
public struct ExposureWindow: Hashable, Sendable {
    /// The UTC day of the window's first scan instance; a window crossing midnight counts on the day it began.
    public var date: UTCDay
    /// The key's report type as scored: unknown already mapped through the configuration.
    public var reportType: ReportType
    /// Never none: such windows are not made.
    public var infectiousness: Infectiousness
    /// Oldest first; the last starts less than 30 minutes after the first.
    public var scanInstances: [ScanInstance]
    /// The sender's, as Google's and Apple's windows carry it: for the badge's own windows, from the metadata of the
    /// window's first sighting (as Google's `KeyExposureEvaluator` takes it); a phone's API's when read from its JSON.
    public var calibrationConfidence: CalibrationConfidence

    public init(date: UTCDay, reportType: ReportType, infectiousness: Infectiousness, scanInstances: [ScanInstance],
                calibrationConfidence: CalibrationConfidence = .lowest) {
        self.date = date
        self.reportType = reportType
        self.infectiousness = infectiousness
        self.scanInstances = scanInstances
        self.calibrationConfidence = calibrationConfidence
    }
}
