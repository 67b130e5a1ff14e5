/// LE Set Advertising Enable (Core Vol 4 Part E 7.8.9): starts or stops legacy advertising.
public struct LESetAdvertisingEnableCommand: HCICommand {
    public static let opcode = Opcode(ogf: Opcode.leControllerGroup, ocf: 0x000A)

    public var isEnabled: Bool

    public init(isEnabled: Bool) { self.isEnabled = isEnabled }

    public func encodeParameters(into buffer: inout [UInt8]) {
        buffer.append(isEnabled ? 1 : 0)
    }

    public init(parameters: ArraySlice<UInt8>) throws(HCIDecodeError) {
        var reader = ByteReader(parameters)
        isEnabled = try reader.flag(field: "Advertising_Enable")
        try reader.finish()
    }
}
