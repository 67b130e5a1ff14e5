/// A protobuf byte stream that cannot be parsed. Offsets count from the start of the file the
/// stream came from (for export.bin, the 16-byte header included), so a hex dump finds the spot.
public enum WireFormatError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The data ends inside a field.
    case truncated(offset: Int)
    /// A varint longer than ten bytes, or one whose value does not fit in 64 bits.
    case varintTooLong(offset: Int)
    /// A length prefix that points past the end of the enclosing message.
    case lengthOutOfBounds(offset: Int, length: UInt64, available: Int)
    /// Field number 0, or one above the protobuf maximum (2^29 - 1).
    case invalidFieldNumber(offset: Int)
    /// Wire types 6 and 7 do not exist.
    case invalidWireType(offset: Int, rawValue: UInt8)
    /// A field the schema knows arrives with a different wire type than the schema gives it.
    case wrongWireType(message: String, field: UInt32, found: WireType, offset: Int)
    /// An end-group tag without its start-group, or closing a different group.
    case unmatchedEndGroup(offset: Int)
    /// Groups nested deeper than any real encoder would produce.
    case groupsTooDeep(offset: Int)

    public var description: String {
        switch self {
        case .truncated(let offset):
            "data ends inside a field (at byte \(offset))"
        case .varintTooLong(let offset):
            "varint longer than 64 bits at byte \(offset)"
        case .lengthOutOfBounds(let offset, let length, let available):
            "length \(length) at byte \(offset) exceeds the \(available) bytes left in its message"
        case .invalidFieldNumber(let offset):
            "invalid field number at byte \(offset)"
        case .invalidWireType(let offset, let raw):
            "invalid wire type \(raw) at byte \(offset)"
        case .wrongWireType(let message, let field, let found, let offset):
            "\(message) field \(field) has wire type \(found) at byte \(offset), which its schema does not allow"
        case .unmatchedEndGroup(let offset):
            "end-group tag without a matching start at byte \(offset)"
        case .groupsTooDeep(let offset):
            "groups nested too deeply at byte \(offset)"
        }
    }
}
