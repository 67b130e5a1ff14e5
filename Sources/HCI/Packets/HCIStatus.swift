/// An HCI error code (Core Vol 1 Part F), the first return parameter of most commands.
///
/// A struct rather than an enum: controllers send codes this module has no name for, and those
/// must travel through intact.
public struct HCIStatus: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt8

    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let success = HCIStatus(rawValue: 0x00)
    public static let unknownCommand = HCIStatus(rawValue: 0x01)
    public static let hardwareFailure = HCIStatus(rawValue: 0x03)
    public static let memoryCapacityExceeded = HCIStatus(rawValue: 0x07)
    public static let commandDisallowed = HCIStatus(rawValue: 0x0C)
    public static let unsupportedFeatureOrParameter = HCIStatus(rawValue: 0x11)
    public static let invalidParameters = HCIStatus(rawValue: 0x12)
    public static let unspecifiedError = HCIStatus(rawValue: 0x1F)
    public static let controllerBusy = HCIStatus(rawValue: 0x3A)

    public var isSuccess: Bool { self == .success }

    private static let names: [UInt8: String] = [
        0x00: "Success",
        0x01: "Unknown HCI Command",
        0x03: "Hardware Failure",
        0x07: "Memory Capacity Exceeded",
        0x0C: "Command Disallowed",
        0x11: "Unsupported Feature or Parameter Value",
        0x12: "Invalid HCI Command Parameters",
        0x1F: "Unspecified Error",
        0x3A: "Controller Busy",
    ]

    /// `0x0c (Command Disallowed)`.
    public var description: String {
        let hex = String(rawValue, radix: 16)
        let code = "0x" + (hex.count < 2 ? "0" : "") + hex
        guard let name = Self.names[rawValue] else { return code }
        return "\(code) (\(name))"
    }
}
