/// Apple's first risk-scoring configuration (ENExposureConfiguration before v2), as its sample app writes it:
///
/// ```json
/// {"minimumRiskScore":0, "attenuationDurationThresholds":[50,70],
///  "attenuationLevelValues":[1,2,3,4,5,6,7,8], "daysSinceLastExposureLevelValues":[1,2,3,4,5,6,7,8],
///  "durationLevelValues":[1,2,3,4,5,6,7,8], "transmissionRiskLevelValues":[1,2,3,4,5,6,7,8]}
/// ```
///
/// Each `…LevelValues` array holds the value (0–8) of buckets 0–7 of `RiskBucketsV1`; a risk score is the product
/// of four such values. All six members are required; other members are ignored.
public struct ExposureConfigurationV1: Hashable, Sendable {
    public static let levelCount = 8
    public static let levelRange = 0...8
    /// 8⁴: the largest product of four level values.
    public static let riskScoreRange = 0...4096
    public static let attenuationRange = 0...255

    /// Exposures scoring below this get a risk score of 0.
    public private(set) var minimumRiskScore: Int
    /// `[t0, t1]` in dB, t0 ≤ t1: the boundaries of the three `attenuationDurations` buckets.
    public private(set) var attenuationDurationThresholds: [Int]
    public private(set) var attenuationLevelValues: [Int]
    public private(set) var daysSinceLastExposureLevelValues: [Int]
    public private(set) var durationLevelValues: [Int]
    /// Indexed by the key's transmission risk level, 0–7 (Apple's indexing, not Google's level − 1).
    public private(set) var transmissionRiskLevelValues: [Int]

    /// Checks every rule the JSON form is held to, so a configuration built in code cannot index out of range.
    public init(minimumRiskScore: Int, attenuationDurationThresholds: [Int], attenuationLevelValues: [Int],
                daysSinceLastExposureLevelValues: [Int], durationLevelValues: [Int],
                transmissionRiskLevelValues: [Int]) throws(RiskConfigurationError) {
        guard Self.riskScoreRange.contains(minimumRiskScore) else {
            throw RiskConfigurationError(field: "minimumRiskScore", reason: "\(minimumRiskScore) is outside 0…4096")
        }
        try Self.check(attenuationDurationThresholds, "attenuationDurationThresholds", count: 2,
                       in: Self.attenuationRange)
        guard attenuationDurationThresholds[0] <= attenuationDurationThresholds[1] else {
            throw RiskConfigurationError(field: "attenuationDurationThresholds",
                                         reason: "\(attenuationDurationThresholds.listText) must not descend")
        }
        try Self.check(attenuationLevelValues, "attenuationLevelValues", count: Self.levelCount, in: Self.levelRange)
        try Self.check(daysSinceLastExposureLevelValues, "daysSinceLastExposureLevelValues",
                       count: Self.levelCount, in: Self.levelRange)
        try Self.check(durationLevelValues, "durationLevelValues", count: Self.levelCount, in: Self.levelRange)
        try Self.check(transmissionRiskLevelValues, "transmissionRiskLevelValues", count: Self.levelCount,
                       in: Self.levelRange)
        self.minimumRiskScore = minimumRiskScore
        self.attenuationDurationThresholds = attenuationDurationThresholds
        self.attenuationLevelValues = attenuationLevelValues
        self.daysSinceLastExposureLevelValues = daysSinceLastExposureLevelValues
        self.durationLevelValues = durationLevelValues
        self.transmissionRiskLevelValues = transmissionRiskLevelValues
    }

    /// Decodes the JSON shape above.
    public init(json: String) throws(RiskConfigurationError) {
        let document = try ConfigurationObject(document: json)
        try self.init(
            minimumRiskScore: document.integer("minimumRiskScore", in: Self.riskScoreRange),
            attenuationDurationThresholds: document.integers("attenuationDurationThresholds", count: 2,
                                                             in: Self.attenuationRange),
            attenuationLevelValues: document.integers("attenuationLevelValues", count: Self.levelCount,
                                                      in: Self.levelRange),
            daysSinceLastExposureLevelValues: document.integers("daysSinceLastExposureLevelValues",
                                                                count: Self.levelCount, in: Self.levelRange),
            durationLevelValues: document.integers("durationLevelValues", count: Self.levelCount, in: Self.levelRange),
            transmissionRiskLevelValues: document.integers("transmissionRiskLevelValues", count: Self.levelCount,
                                                           in: Self.levelRange))
    }

    private static func check(_ values: [Int], _ field: String, count: Int,
                              in range: ClosedRange<Int>) throws(RiskConfigurationError) {
        guard values.count == count else {
            throw RiskConfigurationError(field: field, reason: "expected \(count) values, found \(values.count)")
        }
        for (index, value) in values.enumerated() where !range.contains(value) {
            throw RiskConfigurationError(field: "\(field)[\(index)]",
                                         reason: "\(value) is outside \(range.lowerBound)…\(range.upperBound)")
        }
    }

    /// The product of the four level values, or 0 below `minimumRiskScore`. Inputs are raw measurements; the
    /// buckets of `RiskBucketsV1` turn them into indices.
    public func riskScore(attenuation: Int, daysSinceExposure: Int, durationMinutes: Int,
                          transmissionRiskLevel: Int) -> Int {
        let product = attenuationLevelValues[RiskBucketsV1.attenuation(attenuation)]
            * daysSinceLastExposureLevelValues[RiskBucketsV1.daysSinceExposure(daysSinceExposure)]
            * durationLevelValues[RiskBucketsV1.duration(minutes: durationMinutes)]
            * transmissionRiskLevelValues[RiskBucketsV1.transmissionRisk(level: transmissionRiskLevel)]
        return product < minimumRiskScore ? 0 : product
    }
}
