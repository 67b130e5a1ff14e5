/// How well the transmitting device knows the TX power it puts in its metadata (Google's `CalibrationConfidence`,
/// Apple's `ENCalibrationConfidence`, same raw values): bits 3:2 of the version byte of metadata v1.1, which a
/// v1.0 sender lacks (it reads as `.lowest`). Exposure windows carry their sender's; the Corona-Warn-App's model
/// counts windows of one day, transmission risk level and confidence as one encounter at least.
public enum CalibrationConfidence: Int, CaseIterable, Hashable, Sendable, CustomStringConvertible {
    /// No calibration data: a guess, or a default for every device alike (a badge whose radio nobody measured).
    case lowest = 0
    /// The manufacturer's figure, an average over its models: a datasheet or a controller's own report.
    case low = 1
    /// Measured, in one antenna orientation, on this model or a similar one.
    case medium = 2
    /// Measured thoroughly on this model: several orientations, several units.
    case high = 3

    public var description: String {
        switch self {
        case .lowest: "lowest"
        case .low: "low"
        case .medium: "medium"
        case .high: "high"
        }
    }

    /// From the name `description` gives.
    public init?(name: String) {
        guard let match = Self.allCases.first(where: { $0.description == name }) else { return nil }
        self = match
    }

    /// The less trusted of two: what a set of sightings may claim as a whole.
    public static func least(_ a: CalibrationConfidence, _ b: CalibrationConfidence) -> CalibrationConfidence {
        a.rawValue <= b.rawValue ? a : b
    }
}
