/// LE Set Event Mask (Core Vol 4 Part E 7.8.1): which LE Meta subevents the controller may send.
public struct LESetEventMaskCommand: HCICommand {
    public static let opcode = Opcode(ogf: Opcode.leControllerGroup, ocf: 0x0001)

    public var mask: LEEventMask

    public init(mask: LEEventMask) { self.mask = mask }

    public func encodeParameters(into buffer: inout [UInt8]) {
        buffer.appendUInt64(mask.rawValue)
    }

    public init(parameters: ArraySlice<UInt8>) throws(HCIDecodeError) {
        var reader = ByteReader(parameters)
        mask = LEEventMask(rawValue: try reader.uint64())
        try reader.finish()
    }
}
