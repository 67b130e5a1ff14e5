/// One diagnosis key found among the sightings, as the agent records it and `enbeacon match` prints it: the
/// day, how long and how close (v1), the v2 window scores, and when it was found. Never the key itself: the
/// `id` names it one-way.
///
/// One record per key. When v1 splits a key's sightings into several exposures (gaps over ten minutes),
/// the record sums their durations and attenuation durations (each bucket capped at 30 minutes, as Apple's
/// summary does) and keeps the highest risk score and that exposure's attenuation.
public struct Exposure: Hashable, Sendable {
    /// One v2 exposure window of this key that reached `minimumWindowScore`.
    public struct Window: Hashable, Sendable {
        public var date: UTCDay
        public var score: Double
        public var weightedDurationSeconds: Double
        /// The window as Google's API gives it (report type, infectiousness, confidence, scan instances) for
        /// `exposures --windows`; nil in a record written before it was kept. Its instances' times are the day's
        /// midnight: the API has none, and the file keeps none.
        public var exposureWindow: ExposureWindow?

        public init(date: UTCDay, score: Double, weightedDurationSeconds: Double, exposureWindow: ExposureWindow? = nil) {
            self.date = date
            self.score = score
            self.weightedDurationSeconds = weightedDurationSeconds
            self.exposureWindow = exposureWindow
        }
    }

    public var id: ExposureID
    /// The UTC day of the key's rolling start.
    public var date: UTCDay
    public var durationMinutes: Int
    /// Minutes at attenuation `≤ t0`, `t0 < A ≤ t1` and `> t1` (v1 thresholds), each capped at 30.
    public var attenuationDurations: [Int]
    /// Time-weighted mean attenuation of the highest-scoring v1 exposure, dB.
    public var typicalAttenuation: Int
    /// v1 risk score, 0–4096: the highest of the key's v1 exposures.
    public var riskScore: Int
    public var transmissionRiskLevel: Int
    public var reportType: ReportType
    public var daysSinceOnsetOfSymptoms: Int?
    /// v2 windows (possibly none: infectiousness none, or every window under the minimum score).
    public var windows: [Window]
    /// Unix seconds when this device first found the exposure.
    public var detectedAt: Int64
    /// Whether `notify.command` ran (or the threshold check was done) for it.
    public var notified: Bool
    /// How well the sender knew its TX power, from its metadata (`MatchedKey.calibrationConfidence`): how far its
    /// attenuations can be trusted.
    public var calibrationConfidence: CalibrationConfidence

    public init(id: ExposureID, date: UTCDay, durationMinutes: Int, attenuationDurations: [Int], typicalAttenuation: Int,
                riskScore: Int, transmissionRiskLevel: Int, reportType: ReportType, daysSinceOnsetOfSymptoms: Int?,
                windows: [Window], detectedAt: Int64, notified: Bool = false,
                calibrationConfidence: CalibrationConfidence = .lowest) {
        self.id = id
        self.date = date
        self.durationMinutes = durationMinutes
        self.attenuationDurations = attenuationDurations
        self.typicalAttenuation = typicalAttenuation
        self.riskScore = riskScore
        self.transmissionRiskLevel = transmissionRiskLevel
        self.reportType = reportType
        self.daysSinceOnsetOfSymptoms = daysSinceOnsetOfSymptoms
        self.windows = windows
        self.detectedAt = detectedAt
        self.notified = notified
        self.calibrationConfidence = calibrationConfidence
    }

    /// The sum of the v2 window scores.
    public var windowScore: Double { windows.reduce(0) { $0 + $1.score } }
}
