/// A command this module has no type for, kept whole so it can be forwarded, logged or refused.
public struct UnknownCommand: Hashable, Sendable {
    public let opcode: Opcode
    public let parameters: [UInt8]

    public init(opcode: Opcode, parameters: [UInt8]) {
        precondition(parameters.count <= HCICommandPacket.maximumParameterLength, "HCI command parameters exceed 255 bytes")
        self.opcode = opcode
        self.parameters = parameters
    }

    public var packet: HCICommandPacket { HCICommandPacket(opcode: opcode, parameters: parameters) }
}
