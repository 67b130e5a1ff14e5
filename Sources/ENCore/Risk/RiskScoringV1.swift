/// v1 risk scoring: from one matched key's sightings to scored `ExposureV1`s.
///
/// Definitions, so that duration and mean say the same thing everywhere:
/// - Sightings are first grouped into `ScanInstance`s; each instance stands for `secondsSinceLastScan` seconds
///   (the time since the previous scan, in whole minutes, capped at 5 minutes, 2 minutes when unknown).
/// - An exposure is a maximal run of instances in which each starts at most 10 minutes after the one before.
/// - Its duration is the sum of the times its instances stand for, rounded to the nearest 5 minutes.
/// - Its typical attenuation is the mean of the instances' typical attenuations weighted by the time each stands
///   for, rounded half up.
/// - `attenuationDurations[i]` sums the time of the instances whose typical attenuation falls in bucket i.
/// - Days since exposure: UTC days from the key's rolling start to the evaluation day (never below 0).
public enum RiskScoringV1 {
    /// More than this between two scan instances starts a new exposure.
    public static let maximumGapSeconds: Int64 = 600
    public static let attenuationDurationCapMinutes = 30

    /// The exposures to `key`, oldest first; none for a revoked key or a key without sightings.
    /// `evaluationDay` is today: the day days-since-exposure are counted to.
    public static func exposures(to key: MatchedKey, configuration: ExposureConfigurationV1,
                                 evaluationDay: UTCDay) -> [ExposureV1] {
        guard key.reportType.isScored else { return [] }
        let date = UTCDay(key.rollingStart)
        let days = Int(clamping: max(0, date.days(until: evaluationDay)))
        let level = RiskBucketsV1.transmissionRisk(level: key.transmissionRiskLevel)
        return runs(of: ScanInstance.group(key.sightings)).map { run in
            let duration = roundedToFiveMinutes(seconds: run.reduce(0) { $0 + $1.secondsSinceLastScan })
            let attenuation = timeWeightedAttenuation(run)
            var secondsPerBucket = [0, 0, 0]
            for instance in run {
                let bucket = RiskBucketsV1.attenuationDuration(Int(instance.typicalAttenuation),
                                                               thresholds: configuration.attenuationDurationThresholds)
                secondsPerBucket[bucket] += instance.secondsSinceLastScan
            }
            return ExposureV1(
                date: date,
                durationMinutes: duration,
                attenuationDurations: secondsPerBucket.map {
                    min(roundedToFiveMinutes(seconds: $0), attenuationDurationCapMinutes)
                },
                typicalAttenuation: attenuation,
                transmissionRiskLevel: level,
                riskScore: configuration.riskScore(attenuation: Int(attenuation), daysSinceExposure: days,
                                                   durationMinutes: duration, transmissionRiskLevel: level),
                reportType: key.reportType)
        }
    }

    /// Splits time-ordered instances wherever one starts more than `maximumGapSeconds` after the previous.
    static func runs(of instances: [ScanInstance]) -> [[ScanInstance]] {
        var runs: [[ScanInstance]] = []
        for instance in instances {
            if let previous = runs.last?.last, instance.time - previous.time <= maximumGapSeconds {
                runs[runs.count - 1].append(instance)
            } else {
                runs.append([instance])
            }
        }
        return runs
    }

    /// Nearest multiple of 5 minutes, halves up (2 min 30 s → 5 min).
    static func roundedToFiveMinutes(seconds: Int) -> Int { (seconds + 150) / 300 * 5 }

    /// Σ(attenuation × seconds) / Σ seconds, rounded half up. Every instance stands for at least 60 s.
    static func timeWeightedAttenuation(_ run: [ScanInstance]) -> UInt8 {
        let seconds = run.reduce(0) { $0 + $1.secondsSinceLastScan }
        let weighted = run.reduce(0) { $0 + Int($1.typicalAttenuation) * $1.secondsSinceLastScan }
        return UInt8((2 * weighted + seconds) / (2 * seconds))
    }
}
