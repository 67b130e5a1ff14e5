/// v2 risk scoring: matched keys → exposure windows → window scores → daily summaries.
///
/// - Windows and their scan instances are formed as Google's reference forms them: see `ExposureWindowFormation`
///   (a window holds the sightings less than 30 minutes after its first; gaps inside do not split it).
/// - `weightedDuration = Σ(secondsSinceLastScan × attenuation weight of the instance's typical attenuation)`;
///   `score = weightedDuration × report-type weight × infectiousness weight`.
/// - Windows are not made for revoked keys or keys whose infectiousness is none; windows scoring below
///   `minimumWindowScore` are left out of the daily summaries.
public enum RiskScoringV2 {
    /// The exposure windows of one matched key, oldest first.
    public static func windows(of key: MatchedKey, configuration: ExposureConfigurationV2) -> [ExposureWindow] {
        guard key.reportType.isScored else { return [] }
        let infectiousness = configuration.infectiousness.infectiousness(daysSinceOnset: key.daysSinceOnsetOfSymptoms)
        guard infectiousness != .none else { return [] }
        let reportType = configuration.scoredReportType(key.reportType)

        return ExposureWindowFormation.windows(of: key.sightings, reportType: reportType, infectiousness: infectiousness)
    }

    /// Σ(secondsSinceLastScan × attenuation weight): seconds weighted by closeness alone.
    public static func weightedDuration(of window: ExposureWindow, configuration: ExposureConfigurationV2) -> Double {
        window.scanInstances.reduce(0) { sum, instance in
            let bucket = configuration.bucket(forAttenuation: instance.typicalAttenuation)
            return sum + Double(instance.secondsSinceLastScan) * configuration.weight(of: bucket)
        }
    }

    public static func score(of window: ExposureWindow, configuration: ExposureConfigurationV2) -> Double {
        weightedDuration(of: window, configuration: configuration)
            * configuration.weight(of: window.reportType)
            * configuration.weight(of: window.infectiousness)
    }

    /// One summary per UTC day that has a window at or above `minimumWindowScore`, oldest day first.
    public static func dailySummaries(of windows: [ExposureWindow],
                                      configuration: ExposureConfigurationV2) -> [DailySummary] {
        var byDay: [UTCDay: DailySummary] = [:]
        for window in windows {
            let score = score(of: window, configuration: configuration)
            guard score >= configuration.minimumWindowScore else { continue }
            byDay[window.date, default: DailySummary(date: window.date)]
                .add(score: score, weightedDuration: weightedDuration(of: window, configuration: configuration),
                     reportType: window.reportType)
        }
        return byDay.values.sorted { $0.date < $1.date }
    }

    /// The whole pipeline for a set of matched keys.
    public static func dailySummaries(of keys: [MatchedKey], configuration: ExposureConfigurationV2) -> [DailySummary] {
        dailySummaries(of: keys.flatMap { windows(of: $0, configuration: configuration) }, configuration: configuration)
    }
}
