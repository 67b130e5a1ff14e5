/// The v2 (ExposureWindow) risk configuration, and its JSON form, which is enbeacon's own:
///
/// ```json
/// {"attenuationThresholds": [55, 63, 70],
///  "attenuationWeights": {"immediate": 1.5, "near": 1.0, "medium": 0.5, "other": 0},
///  "reportTypeWeights": {"confirmedTest": 1, "confirmedClinicalDiagnosis": 1, "selfReport": 0.5, "recursive": 0},
///  "reportTypeWhenUnknown": "confirmedTest",
///  "infectiousnessWeights": {"standard": 1, "high": 1.5},
///  "infectiousnessForDaysSinceOnset": {"-2": "high", "11": "standard"},
///  "infectiousnessWhenOnsetUnknown": "standard",
///  "minimumWindowScore": 900}
/// ```
///
/// - `attenuationThresholds`: three integers 0–255, strictly ascending (t0 < t1 < t2), dB. Required.
/// - `attenuationWeights`, `reportTypeWeights`, `infectiousnessWeights`: numbers 0–2.5, every member shown
///   required. Infectiousness none has no weight: its windows are dropped.
/// - `reportTypeWhenUnknown`: the report type keys without one are scored as (Apple's `reportTypeNoneMap`);
///   one of the four weighted names. Optional, default `confirmedTest`.
/// - `infectiousnessForDaysSinceOnset`: members named by a day −14…14 with value "none", "standard" or "high";
///   each replaces that day of `InfectiousnessByDaysSinceOnset.default`, days left out keep it. Optional.
/// - `infectiousnessWhenOnsetUnknown`: for keys without days since onset or with a value outside −14…14 (Google's
///   default infectiousness). Optional, default "standard".
/// - `minimumWindowScore`: a number ≥ 0; windows scoring below it are dropped. Required.
/// Other members are ignored.
public struct ExposureConfigurationV2: Hashable, Sendable {
    public static let weightRange = 0.0...2.5
    public static let attenuationRange = 0...255
    /// The report types a weight exists for; unknown is mapped onto one of them, revoked is never scored.
    public static let weightedReportTypes: [ReportType] = [.confirmedTest, .confirmedClinicalDiagnosis, .selfReport,
                                                           .recursive]

    /// [t0, t1, t2], dB.
    public private(set) var attenuationThresholds: [Int]
    /// Indexed by `AttenuationBucket.rawValue`.
    public private(set) var attenuationWeights: [Double]
    public private(set) var reportTypeWeights: [ReportType: Double]
    public private(set) var reportTypeWhenUnknown: ReportType
    public private(set) var standardInfectiousnessWeight: Double
    public private(set) var highInfectiousnessWeight: Double
    public private(set) var infectiousness: InfectiousnessByDaysSinceOnset
    public private(set) var minimumWindowScore: Double

    /// Checks every rule the JSON form is held to. `attenuationWeights` is [immediate, near, medium, other];
    /// `reportTypeWeights` must have exactly the four `weightedReportTypes`.
    public init(attenuationThresholds: [Int], attenuationWeights: [Double], reportTypeWeights: [ReportType: Double],
                reportTypeWhenUnknown: ReportType = .confirmedTest, standardInfectiousnessWeight: Double,
                highInfectiousnessWeight: Double, infectiousness: InfectiousnessByDaysSinceOnset = .default,
                minimumWindowScore: Double) throws(RiskConfigurationError) {
        guard attenuationThresholds.count == 3 else {
            throw RiskConfigurationError(field: "attenuationThresholds",
                                         reason: "expected 3 values, found \(attenuationThresholds.count)")
        }
        for (index, threshold) in attenuationThresholds.enumerated() where !Self.attenuationRange.contains(threshold) {
            throw RiskConfigurationError(field: "attenuationThresholds[\(index)]",
                                         reason: "\(threshold) is outside 0…255")
        }
        let (t0, t1, t2) = (attenuationThresholds[0], attenuationThresholds[1], attenuationThresholds[2])
        guard t0 < t1, t1 < t2 else {
            throw RiskConfigurationError(field: "attenuationThresholds",
                                         reason: "\(attenuationThresholds.listText) must be strictly ascending")
        }
        guard attenuationWeights.count == AttenuationBucket.allCases.count else {
            throw RiskConfigurationError(field: "attenuationWeights",
                                         reason: "expected 4 weights, found \(attenuationWeights.count)")
        }
        for bucket in AttenuationBucket.allCases {
            try Self.check(weight: attenuationWeights[bucket.rawValue], field: "attenuationWeights.\(bucket)")
        }
        guard Set(reportTypeWeights.keys) == Set(Self.weightedReportTypes) else {
            throw RiskConfigurationError(field: "reportTypeWeights",
                                         reason: "expected weights for exactly \(Self.weightedReportTypes.listText)")
        }
        for type in Self.weightedReportTypes {
            try Self.check(weight: reportTypeWeights[type]!, field: "reportTypeWeights.\(type)")
        }
        guard Self.weightedReportTypes.contains(reportTypeWhenUnknown) else {
            throw RiskConfigurationError(field: "reportTypeWhenUnknown",
                                         reason: "\(reportTypeWhenUnknown) is not one of \(Self.weightedReportTypes.listText)")
        }
        try Self.check(weight: standardInfectiousnessWeight, field: "infectiousnessWeights.standard")
        try Self.check(weight: highInfectiousnessWeight, field: "infectiousnessWeights.high")
        guard minimumWindowScore.isFinite, minimumWindowScore >= 0 else {
            throw RiskConfigurationError(field: "minimumWindowScore",
                                         reason: "\(ConfigurationObject.text(minimumWindowScore)) is below 0")
        }
        self.attenuationThresholds = attenuationThresholds
        self.attenuationWeights = attenuationWeights
        self.reportTypeWeights = reportTypeWeights
        self.reportTypeWhenUnknown = reportTypeWhenUnknown
        self.standardInfectiousnessWeight = standardInfectiousnessWeight
        self.highInfectiousnessWeight = highInfectiousnessWeight
        self.infectiousness = infectiousness
        self.minimumWindowScore = minimumWindowScore
    }

    /// Decodes the JSON shape above.
    public init(json: String) throws(RiskConfigurationError) {
        let document = try ConfigurationObject(document: json)
        let thresholds = try document.integers("attenuationThresholds", count: 3, in: Self.attenuationRange)
        let attenuation = try document.object("attenuationWeights")
        var attenuationWeights: [Double] = []
        for bucket in AttenuationBucket.allCases {
            attenuationWeights.append(try attenuation.number("\(bucket)", in: Self.weightRange))
        }
        let reportTypes = try document.object("reportTypeWeights")
        var reportTypeWeights: [ReportType: Double] = [:]
        for type in Self.weightedReportTypes {
            reportTypeWeights[type] = try reportTypes.number(type.description, in: Self.weightRange)
        }
        var whenUnknown = ReportType.confirmedTest
        if document.contains("reportTypeWhenUnknown") {
            let name = try document.string("reportTypeWhenUnknown")
            guard let type = ReportType(name: name), Self.weightedReportTypes.contains(type) else {
                throw RiskConfigurationError(field: "reportTypeWhenUnknown",
                                             reason: "\"\(name)\" is not one of \(Self.weightedReportTypes.listText)")
            }
            whenUnknown = type
        }
        let infectiousnessWeights = try document.object("infectiousnessWeights")
        try self.init(
            attenuationThresholds: thresholds,
            attenuationWeights: attenuationWeights,
            reportTypeWeights: reportTypeWeights,
            reportTypeWhenUnknown: whenUnknown,
            standardInfectiousnessWeight: infectiousnessWeights.number("standard", in: Self.weightRange),
            highInfectiousnessWeight: infectiousnessWeights.number("high", in: Self.weightRange),
            infectiousness: Self.infectiousness(in: document),
            minimumWindowScore: document.number("minimumWindowScore", in: 0...Double.greatestFiniteMagnitude))
    }

    /// The default map with the document's per-day overrides and unknown-onset value applied.
    private static func infectiousness(
        in document: ConfigurationObject
    ) throws(RiskConfigurationError) -> InfectiousnessByDaysSinceOnset {
        var map = InfectiousnessByDaysSinceOnset.default
        if document.contains("infectiousnessForDaysSinceOnset") {
            let days = try document.object("infectiousnessForDaysSinceOnset")
            for name in days.names {
                guard let day = Int(name), InfectiousnessByDaysSinceOnset.dayRange.contains(day) else {
                    throw RiskConfigurationError(field: days.fieldPath(name),
                                                 reason: "member names must be days −14…14")
                }
                map[day] = try infectiousness(named: days.string(name), field: days.fieldPath(name))
            }
        }
        if document.contains("infectiousnessWhenOnsetUnknown") {
            map.whenUnknown = try infectiousness(named: document.string("infectiousnessWhenOnsetUnknown"),
                                                 field: "infectiousnessWhenOnsetUnknown")
        }
        return map
    }

    private static func infectiousness(named name: String,
                                       field: String) throws(RiskConfigurationError) -> Infectiousness {
        guard let value = Infectiousness(name: name) else {
            throw RiskConfigurationError(field: field, reason: "\"\(name)\" is not none, standard or high")
        }
        return value
    }

    private static func check(weight: Double, field: String) throws(RiskConfigurationError) {
        guard weightRange.contains(weight) else {
            throw RiskConfigurationError(field: field, reason: "\(ConfigurationObject.text(weight)) is outside 0…2.5")
        }
    }

    // MARK: - Weights

    public func bucket(forAttenuation attenuation: UInt8) -> AttenuationBucket {
        AttenuationBucket(attenuation: Int(attenuation), thresholds: attenuationThresholds)
    }

    public func weight(of bucket: AttenuationBucket) -> Double { attenuationWeights[bucket.rawValue] }

    /// The report type a key is scored as: unknown becomes `reportTypeWhenUnknown`.
    public func scoredReportType(_ type: ReportType) -> ReportType {
        type == .unknown ? reportTypeWhenUnknown : type
    }

    /// 0 for revoked keys, which withdraw a diagnosis.
    public func weight(of type: ReportType) -> Double { reportTypeWeights[scoredReportType(type)] ?? 0 }

    /// 0 for none (whose windows are dropped before scoring anyway).
    public func weight(of infectiousness: Infectiousness) -> Double {
        switch infectiousness {
        case .none: 0
        case .standard: standardInfectiousnessWeight
        case .high: highInfectiousnessWeight
        }
    }
}
