/// Appends protobuf wire format (proto2) to a byte array: the few field shapes an export uses.
///
/// Writes into a caller-owned buffer so that the export writer can encode one key record at a time
/// into a reused staging area instead of building a message per key.
struct ProtobufWriter {
    var bytes: [UInt8]

    init(into bytes: [UInt8] = []) { self.bytes = bytes }

    mutating func varint(_ value: UInt64) {
        var rest = value
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }

    mutating func tag(_ field: UInt32, _ wireType: WireType) {
        varint(UInt64(field) << 3 | UInt64(wireType.rawValue))
    }

    /// proto `int32`: a negative value is sign-extended to 64 bits, so it takes ten bytes.
    mutating func int32(_ field: UInt32, _ value: Int32) {
        tag(field, .varint)
        varint(UInt64(bitPattern: Int64(value)))
    }

    /// proto `sint32`: ZigZag first, so -1 is one byte rather than ten.
    mutating func sint32(_ field: UInt32, _ value: Int32) {
        tag(field, .varint)
        varint(UInt64(UInt32(bitPattern: (value << 1) ^ (value >> 31))))
    }

    mutating func fixed64(_ field: UInt32, _ value: UInt64) {
        tag(field, .fixed64)
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func bytesField<C: Collection>(_ field: UInt32, _ value: C) where C.Element == UInt8 {
        tag(field, .lengthDelimited)
        varint(UInt64(value.count))
        bytes.append(contentsOf: value)
    }

    mutating func string(_ field: UInt32, _ value: String) { bytesField(field, Array(value.utf8)) }

    /// A nested message: encoded into a scratch writer first, since its length prefix comes before it.
    mutating func message(_ field: UInt32, _ build: (inout ProtobufWriter) -> Void) {
        var inner = ProtobufWriter()
        build(&inner)
        bytesField(field, inner.bytes)
    }

    /// Bytes a varint of `value` takes.
    static func varintSize(_ value: UInt64) -> Int {
        var size = 1
        var rest = value >> 7
        while rest != 0 {
            size += 1
            rest >>= 7
        }
        return size
    }
}
