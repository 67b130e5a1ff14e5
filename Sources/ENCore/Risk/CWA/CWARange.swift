/// A range of numbers in the Corona-Warn-App's risk configuration: `{"min": 0, "max": 63, "maxExclusive": true}`.
/// Bounds are inclusive unless marked exclusive; the flags may be left out, as protocol buffers' JSON leaves out
/// `false`. `min` and `max` are required.
public struct CWARange: Hashable, Sendable {
    public var min: Double
    public var max: Double
    public var minExclusive: Bool
    public var maxExclusive: Bool

    public init(min: Double, max: Double, minExclusive: Bool = false, maxExclusive: Bool = false) {
        self.min = min
        self.max = max
        self.minExclusive = minExclusive
        self.maxExclusive = maxExclusive
    }

    public func contains(_ value: Double) -> Bool {
        let aboveMin = minExclusive ? value > min : value >= min
        let belowMax = maxExclusive ? value < max : value <= max
        return aboveMin && belowMax
    }

    public func contains(_ value: Int) -> Bool { contains(Double(value)) }

    /// Reads one range object; a misspelt flag is refused rather than read as `false`.
    init(_ object: ConfigurationObject) throws(RiskConfigurationError) {
        try object.requireOnly(["min", "max", "minExclusive", "maxExclusive"])
        let anything = -Double.greatestFiniteMagnitude...Double.greatestFiniteMagnitude
        self.init(min: try object.number("min", in: anything), max: try object.number("max", in: anything),
                  minExclusive: try object.bool("minExclusive", absent: false),
                  maxExclusive: try object.bool("maxExclusive", absent: false))
        guard min <= max else {
            throw RiskConfigurationError(field: object.fieldPath("min"),
                                         reason: "\(ConfigurationObject.text(min)) is above max "
                                             + "\(ConfigurationObject.text(max))")
        }
    }
}
