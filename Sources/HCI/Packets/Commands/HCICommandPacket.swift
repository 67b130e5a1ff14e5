/// A command as it travels: opcode (little-endian), a one-byte parameter length, the parameters.
///
/// The layer between raw bytes and typed commands: the virtual controller decodes this first, then
/// looks at the opcode to pick a type (or to answer Unknown Command).
public struct HCICommandPacket: Hashable, Sendable {
    public static let headerLength = 3
    public static let maximumParameterLength = 255

    public let opcode: Opcode
    public let parameters: [UInt8]

    /// `parameters` longer than 255 bytes cannot be framed: passing them is a programming error.
    public init(opcode: Opcode, parameters: [UInt8]) {
        precondition(parameters.count <= Self.maximumParameterLength, "HCI command parameters exceed 255 bytes")
        self.opcode = opcode
        self.parameters = parameters
    }

    public init(decoding bytes: [UInt8]) throws(HCIDecodeError) {
        try self.init(decoding: bytes[...])
    }

    /// Decodes one packet (without H4 indicator) whose length field must match the bytes exactly.
    public init(decoding bytes: ArraySlice<UInt8>) throws(HCIDecodeError) {
        var reader = ByteReader(bytes)
        let opcode = Opcode(rawValue: try reader.uint16())
        let declared = Int(try reader.uint8())
        guard declared == reader.remaining else {
            throw .lengthMismatch(declared: declared, actual: reader.remaining)
        }
        self.opcode = opcode
        parameters = Array(reader.rest())
    }

    /// Opcode, length and parameters, without the H4 indicator.
    public func encoded() -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Self.headerLength + parameters.count)
        bytes.appendUInt16(opcode.rawValue)
        bytes.append(UInt8(parameters.count))
        bytes += parameters
        return bytes
    }

    /// The typed command this packet carries, or `.unknown` for an opcode this module does not know.
    /// Throws when a known opcode comes with parameters that do not decode.
    public func decoded() throws(HCIDecodeError) -> DecodedCommand {
        try DecodedCommand(self)
    }
}
