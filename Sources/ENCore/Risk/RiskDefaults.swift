/// The risk configurations in force when `risk.config` names none.
public enum RiskDefaults {
    /// SPEC §5's ENExposureConfiguration: every level value equal to its bucket number plus one, thresholds
    /// 50 and 70 dB, no minimum.
    public static let v1: ExposureConfigurationV1 = {
        let levels = Array(1...8)
        return try! ExposureConfigurationV1(
            minimumRiskScore: 0, attenuationDurationThresholds: [50, 70], attenuationLevelValues: levels,
            daysSinceLastExposureLevelValues: levels, durationLevelValues: levels, transmissionRiskLevelValues: levels)
    }()

    /// The weights of `ExposureConfigurationV2`'s documented example, with no minimum window score so every
    /// window counts in the daily sums (the notification decision is v1's `risk.threshold`).
    public static let v2: ExposureConfigurationV2 = try! ExposureConfigurationV2(
        attenuationThresholds: [55, 63, 70], attenuationWeights: [1.5, 1.0, 0.5, 0],
        reportTypeWeights: [.confirmedTest: 1, .confirmedClinicalDiagnosis: 1, .selfReport: 0.5, .recursive: 0],
        standardInfectiousnessWeight: 1, highInfectiousnessWeight: 1.5, minimumWindowScore: 0)
}
