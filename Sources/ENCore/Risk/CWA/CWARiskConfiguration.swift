/// The Corona-Warn-App's exposure-window risk configuration (its `RiskCalculationParameters`), in the JSON shape of
/// the app's published test resources (`defaultRiskCalculationConfiguration`):
///
/// ```json
/// {"minutesAtAttenuationFilters": [], "trlFilters": [],
///  "minutesAtAttenuationWeights": [{"attenuationRange": {"min": 0, "max": 63, "maxExclusive": true}, "weight": 0.8}],
///  "normalizedTimePerEWToRiskLevelMapping": [{"normalizedTimeRange": {"min": 9, "max": 9999}, "riskLevel": 2}],
///  "normalizedTimePerDayToRiskLevelMapping": [{"normalizedTimeRange": {"min": 9, "max": 99999}, "riskLevel": 2}],
///  "trlEncoding": {"infectiousnessOffsetStandard": 1, "infectiousnessOffsetHigh": 2, "reportTypeOffsetRecursive": 0,
///                  "reportTypeOffsetSelfReport": 2, "reportTypeOffsetConfirmedClinicalDiagnosis": 4,
///                  "reportTypeOffsetConfirmedTest": 6},
///  "transmissionRiskValueMapping": [{"transmissionRiskLevel": 6, "transmissionRiskValue": 1.2}]}
/// ```
///
/// - `minutesAtAttenuationFilters` (`attenuationRange`, `dropIfMinutesInRange`) and `trlFilters`
///   (`dropIfTrlInRange`): optional, empty when left out, as protocol buffers' JSON leaves out empty lists.
/// - The weights, both mappings, `trlEncoding` (all six offsets, integers 0–100) and
///   `transmissionRiskValueMapping` are required. Weights and transmission risk values are numbers ≥ 0, risk levels
///   1 (low) or 2 (high), and a transmission risk level is mapped at most once.
/// - A document whose top level holds `defaultRiskCalculationConfiguration` is read from that member, so the app's
///   test file itself is a configuration. Other members (`maxEncounterAgeInDays`, the deprecated
///   `transmissionRiskLevelMultiplier`) are ignored: the calculation does not read them.
///
/// Lists keep the document's order: where ranges overlap, the first that contains a value decides, as in the app.
public struct CWARiskConfiguration: Hashable, Sendable {
    /// Drops a window when its minutes at `attenuationRange` (by minimum attenuation) fall in `dropIfMinutesInRange`.
    public struct MinutesAtAttenuationFilter: Hashable, Sendable {
        public var attenuationRange: CWARange
        public var dropIfMinutesInRange: CWARange

        public init(attenuationRange: CWARange, dropIfMinutesInRange: CWARange) {
            self.attenuationRange = attenuationRange
            self.dropIfMinutesInRange = dropIfMinutesInRange
        }
    }

    /// The weight of seconds whose minimum attenuation is in `attenuationRange`.
    public struct MinutesAtAttenuationWeight: Hashable, Sendable {
        public var attenuationRange: CWARange
        public var weight: Double

        public init(attenuationRange: CWARange, weight: Double) {
            self.attenuationRange = attenuationRange
            self.weight = weight
        }
    }

    /// The risk level a normalized time in `normalizedTimeRange` stands for.
    public struct NormalizedTimeMapping: Hashable, Sendable {
        public var normalizedTimeRange: CWARange
        public var riskLevel: CWARiskLevel

        public init(normalizedTimeRange: CWARange, riskLevel: CWARiskLevel) {
            self.normalizedTimeRange = normalizedTimeRange
            self.riskLevel = riskLevel
        }
    }

    public var minutesAtAttenuationFilters: [MinutesAtAttenuationFilter]
    /// `dropIfTrlInRange` of each `trlFilters` entry.
    public var transmissionRiskLevelFilters: [CWARange]
    public var minutesAtAttenuationWeights: [MinutesAtAttenuationWeight]
    public var normalizedTimePerWindowToRiskLevel: [NormalizedTimeMapping]
    public var normalizedTimePerDayToRiskLevel: [NormalizedTimeMapping]
    public var transmissionRiskLevelEncoding: CWATransmissionRiskLevelEncoding
    /// Levels left out have value 0, as in the app.
    public var transmissionRiskValues: [Int: Double]

    public init(minutesAtAttenuationFilters: [MinutesAtAttenuationFilter] = [],
                transmissionRiskLevelFilters: [CWARange] = [],
                minutesAtAttenuationWeights: [MinutesAtAttenuationWeight],
                normalizedTimePerWindowToRiskLevel: [NormalizedTimeMapping],
                normalizedTimePerDayToRiskLevel: [NormalizedTimeMapping],
                transmissionRiskLevelEncoding: CWATransmissionRiskLevelEncoding,
                transmissionRiskValues: [Int: Double]) {
        self.minutesAtAttenuationFilters = minutesAtAttenuationFilters
        self.transmissionRiskLevelFilters = transmissionRiskLevelFilters
        self.minutesAtAttenuationWeights = minutesAtAttenuationWeights
        self.normalizedTimePerWindowToRiskLevel = normalizedTimePerWindowToRiskLevel
        self.normalizedTimePerDayToRiskLevel = normalizedTimePerDayToRiskLevel
        self.transmissionRiskLevelEncoding = transmissionRiskLevelEncoding
        self.transmissionRiskValues = transmissionRiskValues
    }

    /// Decodes the JSON shape above; an error names the member at fault, e.g.
    /// `minutesAtAttenuationWeights[1].attenuationRange.max: missing`.
    public init(json: String) throws(RiskConfigurationError) {
        var document = try ConfigurationObject(document: json)
        if document.contains("defaultRiskCalculationConfiguration") {
            document = try document.object("defaultRiskCalculationConfiguration")
        }
        try self.init(document)
    }

    init(_ document: ConfigurationObject) throws(RiskConfigurationError) {
        let nonNegative = 0...Double.greatestFiniteMagnitude
        var filters: [MinutesAtAttenuationFilter] = []
        for filter in try Self.optionalObjects("minutesAtAttenuationFilters", in: document) {
            try filter.requireOnly(["attenuationRange", "dropIfMinutesInRange"])
            filters.append(MinutesAtAttenuationFilter(attenuationRange: try CWARange(filter.object("attenuationRange")),
                                                      dropIfMinutesInRange: try CWARange(filter.object("dropIfMinutesInRange"))))
        }
        var levelFilters: [CWARange] = []
        for filter in try Self.optionalObjects("trlFilters", in: document) {
            try filter.requireOnly(["dropIfTrlInRange"])
            levelFilters.append(try CWARange(filter.object("dropIfTrlInRange")))
        }
        var weights: [MinutesAtAttenuationWeight] = []
        for weight in try document.objects("minutesAtAttenuationWeights") {
            try weight.requireOnly(["attenuationRange", "weight"])
            weights.append(MinutesAtAttenuationWeight(attenuationRange: try CWARange(weight.object("attenuationRange")),
                                                      weight: try weight.number("weight", in: nonNegative)))
        }
        var values: [Int: Double] = [:]
        for mapping in try document.objects("transmissionRiskValueMapping") {
            try mapping.requireOnly(["transmissionRiskLevel", "transmissionRiskValue"])
            let level = try mapping.integer("transmissionRiskLevel", in: 0...(2 * CWATransmissionRiskLevelEncoding.offsetRange.upperBound))
            guard values[level] == nil else {
                throw RiskConfigurationError(field: mapping.fieldPath("transmissionRiskLevel"),
                                             reason: "level \(level) is mapped twice")
            }
            values[level] = try mapping.number("transmissionRiskValue", in: nonNegative)
        }
        self.init(minutesAtAttenuationFilters: filters, transmissionRiskLevelFilters: levelFilters,
                  minutesAtAttenuationWeights: weights,
                  normalizedTimePerWindowToRiskLevel: try Self.mappings("normalizedTimePerEWToRiskLevelMapping", in: document),
                  normalizedTimePerDayToRiskLevel: try Self.mappings("normalizedTimePerDayToRiskLevelMapping", in: document),
                  transmissionRiskLevelEncoding: try CWATransmissionRiskLevelEncoding(document.object("trlEncoding")),
                  transmissionRiskValues: values)
    }

    private static func optionalObjects(_ name: String,
                                        in document: ConfigurationObject) throws(RiskConfigurationError) -> [ConfigurationObject] {
        document.contains(name) ? try document.objects(name) : []
    }

    private static func mappings(_ name: String,
                                 in document: ConfigurationObject) throws(RiskConfigurationError) -> [NormalizedTimeMapping] {
        var result: [NormalizedTimeMapping] = []
        for mapping in try document.objects(name) {
            try mapping.requireOnly(["normalizedTimeRange", "riskLevel"])
            let range = try CWARange(mapping.object("normalizedTimeRange"))
            // 1 low, 2 high; the protocol's 0 (unspecified) would make a window that counts towards nothing.
            let level = CWARiskLevel(rawValue: try mapping.integer("riskLevel", in: 1...2))!
            result.append(NormalizedTimeMapping(normalizedTimeRange: range, riskLevel: level))
        }
        return result
    }
}
