/// A bounds-checked cursor over packet bytes, reading the little-endian fields HCI uses.
///
/// Every read checks what is left first and throws `HCIDecodeError.truncated` instead of indexing past
/// the end: this is the only place decoders touch raw indices, so one audit covers all of them.
struct ByteReader {
    private let storage: ArraySlice<UInt8>
    private var position: Int

    init(_ bytes: ArraySlice<UInt8>) {
        storage = bytes
        position = storage.startIndex
    }

    var remaining: Int { storage.endIndex - position }
    var isAtEnd: Bool { position == storage.endIndex }

    mutating func uint8() throws(HCIDecodeError) -> UInt8 {
        try require(1)
        defer { position += 1 }
        return storage[position]
    }

    mutating func int8() throws(HCIDecodeError) -> Int8 {
        Int8(bitPattern: try uint8())
    }

    mutating func uint16() throws(HCIDecodeError) -> UInt16 {
        try require(2)
        defer { position += 2 }
        return UInt16(storage[position]) | UInt16(storage[position + 1]) << 8
    }

    mutating func uint64() throws(HCIDecodeError) -> UInt64 {
        try require(8)
        var value: UInt64 = 0
        for offset in 0..<8 { value |= UInt64(storage[position + offset]) << (8 * offset) }
        position += 8
        return value
    }

    mutating func address() throws(HCIDecodeError) -> BDAddress {
        try require(BDAddress.byteCount)
        var value: UInt64 = 0
        for offset in 0..<BDAddress.byteCount { value |= UInt64(storage[position + offset]) << (8 * offset) }
        position += BDAddress.byteCount
        return BDAddress(rawValue: value)
    }

    /// A fixed-size block of `count` bytes, whose absence means the packet is short.
    mutating func bytes(count: Int) throws(HCIDecodeError) -> ArraySlice<UInt8> {
        try require(max(0, count))
        defer { position += count }
        return storage[position..<(position + count)]
    }

    /// `count` bytes of variable-length data whose length came from the packet itself, so an overrun
    /// is reported as a lying length field rather than as a short packet.
    mutating func data(count: Int) throws(HCIDecodeError) -> ArraySlice<UInt8> {
        guard count >= 0, count <= remaining else { throw .dataLengthOverrun(declared: count, available: remaining) }
        defer { position += count }
        return storage[position..<(position + count)]
    }

    /// Everything not read yet.
    mutating func rest() -> ArraySlice<UInt8> {
        defer { position = storage.endIndex }
        return storage[position...]
    }

    /// Fails when bytes remain: fixed layouts must be consumed exactly.
    func finish() throws(HCIDecodeError) {
        guard isAtEnd else { throw .trailingBytes(remaining) }
    }

    private func require(_ count: Int) throws(HCIDecodeError) {
        guard remaining >= count else { throw .truncated(needed: count, available: remaining) }
    }
}

extension ByteReader {
    /// A one-byte enumerated field; values the enumeration has no case for are invalid.
    mutating func enumerated<Value: RawRepresentable>(
        _ type: Value.Type, field: String
    ) throws(HCIDecodeError) -> Value where Value.RawValue == UInt8 {
        let raw = try uint8()
        guard let value = Value(rawValue: raw) else { throw .invalidValue(field: field, value: UInt64(raw)) }
        return value
    }

    /// A one-byte boolean field: 0x00 or 0x01, everything else reserved.
    mutating func flag(field: String) throws(HCIDecodeError) -> Bool {
        let raw = try uint8()
        guard raw <= 1 else { throw .invalidValue(field: field, value: UInt64(raw)) }
        return raw == 1
    }
}
