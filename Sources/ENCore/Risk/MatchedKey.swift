/// One diagnosis key the matcher found among our sightings, with every sighting that survived its checks.
public struct MatchedKey: Hashable, Sendable {
    /// The key's first interval; v1 counts days since exposure from its UTC day.
    public var rollingStart: ENIntervalNumber
    /// The key's `transmission_risk_level` as published; v1 indexes its table by it Apple-style (0–7; values
    /// outside are clamped into that range rather than dropping the key).
    public var transmissionRiskLevel: Int
    public var reportType: ReportType
    /// `days_since_onset_of_symptoms` as the export gave it, nil when it did not: days from the owner's symptom
    /// onset to the key's day when within −14…14, an encoded range or state beyond (see `InfectiousnessByDaysSinceOnset`).
    public var daysSinceOnsetOfSymptoms: Int?
    /// In any order; scoring sorts by time.
    public var sightings: [MatchedSighting]

    /// The sender's calibration confidence: one sender, one value, normally; should its sightings disagree, the
    /// least trusted. Lowest without sightings.
    public var calibrationConfidence: CalibrationConfidence {
        guard let first = sightings.first?.calibrationConfidence else { return .lowest }
        return sightings.reduce(first) { CalibrationConfidence.least($0, $1.calibrationConfidence) }
    }

    public init(rollingStart: ENIntervalNumber, transmissionRiskLevel: Int, reportType: ReportType,
                daysSinceOnsetOfSymptoms: Int?, sightings: [MatchedSighting]) {
        self.rollingStart = rollingStart
        self.transmissionRiskLevel = transmissionRiskLevel
        self.reportType = reportType
        self.daysSinceOnsetOfSymptoms = daysSinceOnsetOfSymptoms
        self.sightings = sightings
    }
}
