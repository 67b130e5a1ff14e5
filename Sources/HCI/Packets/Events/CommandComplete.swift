/// Command Complete (event 0x0E): a command finished, with its return parameters.
///
/// The return parameters stay raw here because their layout depends on the command, which only
/// the host's bookkeeping knows; `returnParameters(for:)` decodes them once the opcode is matched.
public struct CommandComplete: Hashable, Sendable {
    /// Event parameters hold the count and opcode (3 bytes) before the return parameters.
    public static let maximumReturnParametersLength = HCIEvent.maximumParameterLength - 3

    /// How many more commands the controller accepts now (flow control).
    public let numCommandPackets: UInt8
    public let opcode: Opcode
    public let returnParameters: [UInt8]

    /// More than 252 bytes of return parameters cannot be encoded: passing them is a programming error.
    public init(numCommandPackets: UInt8 = 1, opcode: Opcode, returnParameters: [UInt8]) {
        precondition(
            returnParameters.count <= Self.maximumReturnParametersLength,
            "Command Complete return parameters exceed 252 bytes")
        self.numCommandPackets = numCommandPackets
        self.opcode = opcode
        self.returnParameters = returnParameters
    }

    /// The answer to `command`, as the virtual controller sends it.
    public init<Command: HCICommand>(
        numCommandPackets: UInt8 = 1, answering command: Command.Type, with result: Command.ReturnParameters
    ) {
        var bytes: [UInt8] = []
        result.encode(into: &bytes)
        self.init(numCommandPackets: numCommandPackets, opcode: Command.opcode, returnParameters: bytes)
    }

    /// The first return parameter, which is the status for every command this module knows; nil when
    /// there are no return parameters at all (as for the no-operation opcode).
    public var status: HCIStatus? {
        returnParameters.first.map(HCIStatus.init(rawValue:))
    }

    /// Decodes the return parameters as the answer to `command`, checking the opcode first.
    public func returnParameters<Command: HCICommand>(
        for command: Command.Type
    ) throws(HCIDecodeError) -> Command.ReturnParameters {
        guard opcode == Command.opcode else { throw .opcodeMismatch(expected: Command.opcode, actual: opcode) }
        return try Command.ReturnParameters(returnParameters: returnParameters[...])
    }

    func encodeParameters(into buffer: inout [UInt8]) {
        buffer.append(numCommandPackets)
        buffer.appendUInt16(opcode.rawValue)
        buffer += returnParameters
    }

    init(parameters: ArraySlice<UInt8>) throws(HCIDecodeError) {
        var reader = ByteReader(parameters)
        numCommandPackets = try reader.uint8()
        opcode = Opcode(rawValue: try reader.uint16())
        returnParameters = Array(reader.rest())
    }
}
