/// How well the receiving device's Bluetooth signal strength is calibrated, as phones' exposure windows report
/// it (Google's `CalibrationConfidence`, Apple's `ENCalibrationConfidence`). The Corona-Warn-App's model counts
/// windows of one day, transmission risk level and confidence as one encounter at least.
public enum CalibrationConfidence: Int, CaseIterable, Hashable, Sendable, CustomStringConvertible {
    /// No calibration data: what the badge reports, since nobody has calibrated its radio.
    case lowest = 0
    case low = 1
    case medium = 2
    case high = 3

    public var description: String {
        switch self {
        case .lowest: "lowest"
        case .low: "low"
        case .medium: "medium"
        case .high: "high"
        }
    }
}
