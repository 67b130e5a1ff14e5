/// Command Status (event 0x0F): a command was accepted (or refused) and will finish later, if at all.
///
/// Controllers also use it to refuse a command they do not know, with status Unknown HCI Command.
public struct CommandStatus: Hashable, Sendable {
    static let parameterLength = 4

    public let status: HCIStatus
    public let numCommandPackets: UInt8
    public let opcode: Opcode

    public init(status: HCIStatus, numCommandPackets: UInt8 = 1, opcode: Opcode) {
        self.status = status
        self.numCommandPackets = numCommandPackets
        self.opcode = opcode
    }

    func encodeParameters(into buffer: inout [UInt8]) {
        buffer.append(status.rawValue)
        buffer.append(numCommandPackets)
        buffer.appendUInt16(opcode.rawValue)
    }

    init(parameters: ArraySlice<UInt8>) throws(HCIDecodeError) {
        var reader = ByteReader(parameters)
        status = HCIStatus(rawValue: try reader.uint8())
        numCommandPackets = try reader.uint8()
        opcode = Opcode(rawValue: try reader.uint16())
        try reader.finish()
    }
}
