/// One HCI command: its opcode, how its parameters look on the wire, and what its Command Complete returns.
///
/// The host encodes and the virtual controller decodes with the same type, so a layout mistake shows
/// up as a failed round trip in tests rather than as two implementations agreeing on a wrong format.
/// Decoding validates lengths and enumerated values (throwing, never trapping): the virtual
/// controller answers a decode failure the way a strict controller would, with Invalid Parameters.
public protocol HCICommand: Hashable, Sendable {
    /// The Command Complete return parameters this command is answered with.
    associatedtype ReturnParameters: HCIReturnParameters = StatusReturn

    static var opcode: Opcode { get }

    /// Appends the parameters (not the opcode or length) to `buffer`.
    func encodeParameters(into buffer: inout [UInt8])

    /// Decodes exactly the parameters of one command, rejecting missing or extra bytes.
    init(parameters: ArraySlice<UInt8>) throws(HCIDecodeError)
}

extension HCICommand {
    /// The command as a packet: opcode plus encoded parameters.
    public var packet: HCICommandPacket {
        var parameters: [UInt8] = []
        encodeParameters(into: &parameters)
        return HCICommandPacket(opcode: Self.opcode, parameters: parameters)
    }

    /// The command packet bytes (opcode, length, parameters) without the H4 indicator.
    public func encoded() -> [UInt8] { packet.encoded() }

    /// Decodes a whole command packet, checking that it carries this command's opcode.
    public init(packet bytes: [UInt8]) throws(HCIDecodeError) {
        let packet = try HCICommandPacket(decoding: bytes)
        try self.init(packet)
    }

    /// Decodes the parameters of `packet`, checking that it carries this command's opcode.
    public init(_ packet: HCICommandPacket) throws(HCIDecodeError) {
        guard packet.opcode == Self.opcode else {
            throw .opcodeMismatch(expected: Self.opcode, actual: packet.opcode)
        }
        try self.init(parameters: packet.parameters[...])
    }
}

/// A command without parameters: its encoding is empty and any parameter byte is an error.
public protocol HCIParameterlessCommand: HCICommand {
    init()
}

extension HCIParameterlessCommand {
    public func encodeParameters(into buffer: inout [UInt8]) {}

    public init(parameters: ArraySlice<UInt8>) throws(HCIDecodeError) {
        guard parameters.isEmpty else { throw .trailingBytes(parameters.count) }
        self.init()
    }
}
