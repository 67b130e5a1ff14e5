/// Little-endian field writers, the mirror of `ByteReader`.
extension Array where Element == UInt8 {
    mutating func appendUInt16(_ value: UInt16) {
        append(UInt8(truncatingIfNeeded: value))
        append(UInt8(truncatingIfNeeded: value >> 8))
    }

    mutating func appendUInt64(_ value: UInt64) {
        for offset in 0..<8 { append(UInt8(truncatingIfNeeded: value >> (8 * offset))) }
    }

    mutating func appendInt8(_ value: Int8) {
        append(UInt8(bitPattern: value))
    }

    mutating func appendAddress(_ address: BDAddress) {
        append(contentsOf: address.littleEndianBytes)
    }
}
