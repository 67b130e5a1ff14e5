/// The v1 bucket tables (SPEC §5): which of the eight `…LevelValues` a measurement selects.
///
/// | i | attenuation dB | days since exposure | duration min |
/// |---|---|---|---|
/// | 0 | > 73 | ≥ 14 | = 0 |
/// | 1 | 73 ≥ A > 63 | ≥ 12 | ≤ 5 |
/// | 2 | 63 ≥ A > 51 | ≥ 10 | ≤ 10 |
/// | 3 | 51 ≥ A > 33 | ≥ 8 | ≤ 15 |
/// | 4 | 33 ≥ A > 27 | ≥ 6 | ≤ 20 |
/// | 5 | 27 ≥ A > 15 | ≥ 4 | ≤ 25 |
/// | 6 | 15 ≥ A > 10 | ≥ 2 | ≤ 30 |
/// | 7 | ≤ 10 | ≥ 0 | > 30 |
public enum RiskBucketsV1 {
    /// Lower bounds (exclusive) of attenuation buckets 0–6; anything not above 10 dB is bucket 7.
    private static let attenuationFloors = [73, 63, 51, 33, 27, 15, 10]

    public static func attenuation(_ decibels: Int) -> Int {
        attenuationFloors.firstIndex { decibels > $0 } ?? 7
    }

    /// Buckets fall by one every two days from 14; days before 0 (a key from the future) count as today.
    public static func daysSinceExposure(_ days: Int) -> Int {
        guard days < 14 else { return 0 }
        return 7 - max(days, 0) / 2
    }

    /// Zero minutes is bucket 0 (negative too); then one bucket per started five minutes up to 30.
    public static func duration(minutes: Int) -> Int {
        guard minutes > 0 else { return 0 }
        guard minutes <= 30 else { return 7 }
        return (minutes + 4) / 5
    }

    /// Apple indexes by level 0–7. Levels outside are clamped rather than refused: the key is still a diagnosis.
    public static func transmissionRisk(level: Int) -> Int { min(max(level, 0), 7) }

    /// The `attenuationDurations` bucket with Apple's boundaries: `A ≤ t0 | t0 < A ≤ t1 | A > t1`.
    public static func attenuationDuration(_ decibels: Int, thresholds: [Int]) -> Int {
        if decibels <= thresholds[0] { return 0 }
        return decibels <= thresholds[1] ? 1 : 2
    }
}
