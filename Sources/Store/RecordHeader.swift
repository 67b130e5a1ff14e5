/// The fixed 20-byte header in front of every record in a segment, little-endian:
///
///     0  magic      UInt16  0xB1E5 — where a record may start, for resynchronising past damage
///     2  length     UInt16  payload bytes that follow the header
///     4  sequence   UInt32  one more than the record before it, across segments
///     8  time       Int64   Unix seconds: the newest moment the payload describes (for expiry)
///    16  crc        UInt32  CRC-32 over bytes 0..<16 and the payload
///
/// The CRC covers the header too, so a damaged length or sequence is caught like damaged data; the
/// magic only spares computing a CRC at every byte while resynchronising. Payloads are small on
/// purpose (a flush's batch; larger batches become several records) so two bytes of length suffice.
struct RecordHeader: Hashable, Sendable {
    static let size = 20
    static let maximumPayload = Int(UInt16.max)
    static let magic: UInt16 = 0xB1E5

    var payloadLength: Int
    var sequence: UInt32
    var time: Int64

    init(payloadLength: Int, sequence: UInt32, time: Int64) {
        precondition((0...Self.maximumPayload).contains(payloadLength), "record payload too long")
        self.payloadLength = payloadLength
        self.sequence = sequence
        self.time = time
    }

    /// Bytes the record occupies in its segment.
    var recordSize: Int { Self.size + payloadLength }

    /// Appends header and payload to `out`.
    static func appendRecord(payload: [UInt8], sequence: UInt32, time: Int64, to out: inout [UInt8]) {
        let header = RecordHeader(payloadLength: payload.count, sequence: sequence, time: time)
        var fields = [UInt8]()
        fields.reserveCapacity(Self.size)
        fields.appendLittleEndian(Self.magic)
        fields.appendLittleEndian(UInt16(header.payloadLength))
        fields.appendLittleEndian(header.sequence)
        fields.appendLittleEndian(UInt64(bitPattern: header.time))
        let crc = fields.withUnsafeBytes { f in payload.withUnsafeBytes { p in CRC32.checksum(f, p) } }
        fields.appendLittleEndian(crc)
        out += fields
        out += payload
    }

    /// The header of a complete record starting at `offset` whose CRC verifies, or nil.
    static func validRecord(in bytes: UnsafeRawBufferPointer, at offset: Int) -> RecordHeader? {
        guard bytes.count - offset >= Self.size,
              bytes.littleEndian(UInt16.self, at: offset) == Self.magic else { return nil }
        let length = Int(bytes.littleEndian(UInt16.self, at: offset + 2))
        guard bytes.count - offset - Self.size >= length else { return nil }
        let fields = UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + 16])
        let payload = UnsafeRawBufferPointer(rebasing: bytes[offset + Self.size..<offset + Self.size + length])
        guard CRC32.checksum(fields, payload) == bytes.littleEndian(UInt32.self, at: offset + 16) else { return nil }
        return RecordHeader(payloadLength: length,
                            sequence: bytes.littleEndian(UInt32.self, at: offset + 4),
                            time: Int64(bitPattern: bytes.littleEndian(UInt64.self, at: offset + 8)))
    }
}
