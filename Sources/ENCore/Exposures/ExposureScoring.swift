/// From one matched key to its `Exposure` record: v1 with the configured ENExposureConfiguration, v2 windows
/// with the v2 configuration. Pure.
public enum ExposureScoring {
    /// Nil when v1 finds no exposure (a revoked key, or no sightings left).
    public static func exposure(to key: MatchedKey, id: ExposureID, v1: ExposureConfigurationV1,
                                v2: ExposureConfigurationV2, today: UTCDay, detectedAt: Int64) -> Exposure? {
        let exposures = RiskScoringV1.exposures(to: key, configuration: v1, evaluationDay: today)
        guard let strongest = exposures.max(by: { $0.riskScore < $1.riskScore }) else { return nil }
        var buckets = [0, 0, 0]
        for exposure in exposures {
            for (i, minutes) in exposure.attenuationDurations.enumerated() where i < buckets.count {
                buckets[i] = min(buckets[i] + minutes, RiskScoringV1.attenuationDurationCapMinutes)
            }
        }
        let windows = RiskScoringV2.windows(of: key, configuration: v2).compactMap { window -> Exposure.Window? in
            let score = RiskScoringV2.score(of: window, configuration: v2)
            guard score >= v2.minimumWindowScore else { return nil }
            // Kept as the API gives it, without the instances' times (the day's midnight stands for them), so
            // that the record reads back from its file exactly as it was made.
            var kept = window
            kept.scanInstances = window.scanInstances.map { var instance = $0; instance.time = window.date.unixSeconds; return instance }
            return Exposure.Window(date: window.date, score: score,
                                   weightedDurationSeconds: RiskScoringV2.weightedDuration(of: window, configuration: v2),
                                   exposureWindow: kept)
        }
        return Exposure(id: id, date: strongest.date, durationMinutes: exposures.reduce(0) { $0 + $1.durationMinutes },
                        attenuationDurations: buckets, typicalAttenuation: Int(strongest.typicalAttenuation),
                        riskScore: strongest.riskScore, transmissionRiskLevel: strongest.transmissionRiskLevel,
                        reportType: key.reportType, daysSinceOnsetOfSymptoms: key.daysSinceOnsetOfSymptoms,
                        windows: windows, detectedAt: detectedAt, calibrationConfidence: key.calibrationConfidence)
    }

    /// v2 daily summaries over stored exposures: per UTC day, the sums and maximum of the window scores,
    /// overall and per report type (as scored: unknown mapped through the v2 configuration).
    public static func dailySummaries(of exposures: [Exposure], v2: ExposureConfigurationV2) -> [DailySummary] {
        var byDay: [UTCDay: DailySummary] = [:]
        for exposure in exposures {
            let reportType = v2.scoredReportType(exposure.reportType)
            for window in exposure.windows {
                byDay[window.date, default: DailySummary(date: window.date)]
                    .add(score: window.score, weightedDuration: window.weightedDurationSeconds, reportType: reportType)
            }
        }
        return byDay.values.sorted { $0.date < $1.date }
    }
}
