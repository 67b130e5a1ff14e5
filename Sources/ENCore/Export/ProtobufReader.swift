/// A bounds-checked cursor over protobuf wire data: one message, `start..<end` of a larger buffer.
///
/// It never allocates for the values it reads and never recurses: a nested message is read by a
/// second reader over the range `readLengthDelimited` returns, so the depth is what the schema has
/// (three levels for an export), not what the data claims. Unknown groups are skipped with an
/// explicit, bounded stack rather than by recursion.
struct ProtobufReader {
    /// Deeper group nesting than this is refused; no export schema has groups at all.
    static let maxGroupDepth = 32

    let buffer: UnsafeRawBufferPointer
    private(set) var position: Int
    let end: Int

    init(_ buffer: UnsafeRawBufferPointer, range: Range<Int>) {
        precondition(range.lowerBound >= 0 && range.upperBound <= buffer.count, "reader range outside its buffer")
        self.buffer = buffer
        position = range.lowerBound
        end = range.upperBound
    }

    var isAtEnd: Bool { position >= end }

    /// A field's number and wire type, and where its tag began (for error messages).
    struct Tag {
        var field: UInt32
        var wireType: WireType
        var offset: Int

        /// Throws unless the tag carries `expected`: a known field must have its schema's wire type.
        func require(_ expected: WireType, in message: String) throws(WireFormatError) {
            guard wireType == expected else {
                throw .wrongWireType(message: message, field: field, found: wireType, offset: offset)
            }
        }
    }

    mutating func readTag() throws(WireFormatError) -> Tag {
        let offset = position
        let raw = try readVarint()
        // Field numbers are 29 bits, so a valid tag fits in 32; anything larger is garbage.
        guard raw <= UInt64(UInt32.max), raw >> 3 != 0 else { throw .invalidFieldNumber(offset: offset) }
        guard let wireType = WireType(rawValue: UInt8(raw & 7)) else {
            throw .invalidWireType(offset: offset, rawValue: UInt8(raw & 7))
        }
        return Tag(field: UInt32(raw >> 3), wireType: wireType, offset: offset)
    }

    mutating func readVarint() throws(WireFormatError) -> UInt64 {
        let start = position
        // One-byte varints are by far the most common (lengths, small enums, tags): no loop for them.
        if position < end {
            let first = buffer[position]
            if first < 0x80 {
                position += 1
                return UInt64(first)
            }
        }
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard position < end else { throw .truncated(offset: start) }
            let byte = buffer[position]
            position += 1
            // The tenth byte may contribute only the top bit of a 64-bit value and must end the varint.
            if shift == 63, byte > 1 { throw .varintTooLong(offset: start) }
            result |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return result }
            shift += 7
        }
    }

    mutating func readFixed32() throws(WireFormatError) -> UInt32 {
        guard end - position >= 4 else { throw .truncated(offset: position) }
        defer { position += 4 }
        return UInt32(littleEndian: buffer.loadUnaligned(fromByteOffset: position, as: UInt32.self))
    }

    mutating func readFixed64() throws(WireFormatError) -> UInt64 {
        guard end - position >= 8 else { throw .truncated(offset: position) }
        defer { position += 8 }
        return UInt64(littleEndian: buffer.loadUnaligned(fromByteOffset: position, as: UInt64.self))
    }

    /// The payload of a length-delimited field, as a range of `buffer`; the cursor moves past it.
    mutating func readLengthDelimited() throws(WireFormatError) -> Range<Int> {
        let offset = position
        let length = try readVarint()
        let available = end - position
        guard length <= UInt64(available) else {
            throw .lengthOutOfBounds(offset: offset, length: length, available: available)
        }
        let start = position
        position += Int(length)
        return start..<position
    }

    /// proto2 `int32`: negative values arrive as ten-byte sign-extended varints; the low 32 bits are the value.
    mutating func readInt32() throws(WireFormatError) -> Int32 {
        Int32(truncatingIfNeeded: try readVarint())
    }

    /// proto2 `sint32`: ZigZag, so that small negative numbers stay short (0→0, -1→1, 1→2, -2→3 …).
    mutating func readSInt32() throws(WireFormatError) -> Int32 {
        let n = UInt32(truncatingIfNeeded: try readVarint())
        return Int32(bitPattern: (n >> 1) ^ (0 &- (n & 1)))
    }

    func string(_ range: Range<Int>) -> String {
        String(decoding: UnsafeRawBufferPointer(rebasing: buffer[range]), as: UTF8.self)
    }

    func bytes(_ range: Range<Int>) -> [UInt8] {
        Array(UnsafeRawBufferPointer(rebasing: buffer[range]))
    }

    /// Throws unless `tag` carries `expected`.
    func require(_ expected: WireType, _ tag: Tag, in message: String) throws(WireFormatError) {
        try tag.require(expected, in: message)
    }

    /// Moves past the value of a field this decoder does not know, whatever its wire type.
    mutating func skip(_ tag: Tag) throws(WireFormatError) {
        switch tag.wireType {
        case .varint: _ = try readVarint()
        case .fixed64: _ = try readFixed64()
        case .fixed32: _ = try readFixed32()
        case .lengthDelimited: _ = try readLengthDelimited()
        case .startGroup: try skipGroup(opened: tag)
        case .endGroup: throw .unmatchedEndGroup(offset: tag.offset)
        }
    }

    /// Skips to the end-group tag that closes `opened`, through any nested groups.
    private mutating func skipGroup(opened: Tag) throws(WireFormatError) {
        var open: [UInt32] = [opened.field]
        while let innermost = open.last {
            let tag = try readTag()
            switch tag.wireType {
            case .startGroup:
                guard open.count < Self.maxGroupDepth else { throw .groupsTooDeep(offset: tag.offset) }
                open.append(tag.field)
            case .endGroup:
                guard tag.field == innermost else { throw .unmatchedEndGroup(offset: tag.offset) }
                open.removeLast()
            default:
                try skip(tag)
            }
        }
    }
}
