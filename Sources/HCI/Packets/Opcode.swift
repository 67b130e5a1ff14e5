/// A 16-bit HCI command opcode: a 6-bit group (OGF) above a 10-bit command number (OCF).
public struct Opcode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt16

    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// `ogf` keeps its low 6 bits and `ocf` its low 10, as the opcode field has no room for more.
    public init(ogf: UInt8, ocf: UInt16) {
        rawValue = UInt16(ogf & 0x3F) << 10 | (ocf & 0x03FF)
    }

    public var ogf: UInt8 { UInt8(rawValue >> 10) }
    public var ocf: UInt16 { rawValue & 0x03FF }

    /// The command groups enbeacon speaks.
    public static let controllerAndBasebandGroup: UInt8 = 0x03
    public static let informationalGroup: UInt8 = 0x04
    public static let leControllerGroup: UInt8 = 0x08

    /// Opcode 0 carries no command: a controller sends it in Command Complete/Status to only announce
    /// how many commands it will accept.
    public static let noOperation = Opcode(rawValue: 0x0000)

    /// `0x200a`, the form btmon and the Core specification tables use.
    public var description: String {
        let hex = String(rawValue, radix: 16)
        return "0x" + String(repeating: "0", count: 4 - hex.count) + hex
    }

    /// The specification's name for the commands this module knows, for logs and the console.
    public var name: String? { Self.knownNames[self] }

    private static let knownNames: [Opcode: String] = [
        ResetCommand.opcode: "Reset",
        SetEventMaskCommand.opcode: "Set Event Mask",
        ReadLocalVersionInformationCommand.opcode: "Read Local Version Information",
        ReadBDAddrCommand.opcode: "Read BD ADDR",
        LESetEventMaskCommand.opcode: "LE Set Event Mask",
        LEReadBufferSizeCommand.opcode: "LE Read Buffer Size",
        LEReadLocalSupportedFeaturesCommand.opcode: "LE Read Local Supported Features",
        LESetRandomAddressCommand.opcode: "LE Set Random Address",
        LESetAdvertisingParametersCommand.opcode: "LE Set Advertising Parameters",
        LEReadAdvertisingPhysicalChannelTxPowerCommand.opcode: "LE Read Advertising Physical Channel Tx Power",
        LESetAdvertisingDataCommand.opcode: "LE Set Advertising Data",
        LESetAdvertisingEnableCommand.opcode: "LE Set Advertising Enable",
        LESetScanParametersCommand.opcode: "LE Set Scan Parameters",
        LESetScanEnableCommand.opcode: "LE Set Scan Enable",
    ]
}
