/// Set Event Mask (Core Vol 4 Part E 7.3.1): which events the controller may send at all.
public struct SetEventMaskCommand: HCICommand {
    public static let opcode = Opcode(ogf: Opcode.controllerAndBasebandGroup, ocf: 0x0001)

    public var mask: EventMask

    public init(mask: EventMask) { self.mask = mask }

    public func encodeParameters(into buffer: inout [UInt8]) {
        buffer.appendUInt64(mask.rawValue)
    }

    public init(parameters: ArraySlice<UInt8>) throws(HCIDecodeError) {
        var reader = ByteReader(parameters)
        mask = EventMask(rawValue: try reader.uint64())
        try reader.finish()
    }
}
