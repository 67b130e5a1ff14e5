/// Reads the fixed little-endian fields of binary headers (zip records) at absolute offsets.
/// Callers check the record fits before reading its fields, so these only assert.
extension UnsafeRawBufferPointer {
    func uint16LE(at offset: Int) -> UInt16 {
        precondition(offset >= 0 && offset + 2 <= count)
        return UInt16(littleEndian: loadUnaligned(fromByteOffset: offset, as: UInt16.self))
    }

    func uint32LE(at offset: Int) -> UInt32 {
        precondition(offset >= 0 && offset + 4 <= count)
        return UInt32(littleEndian: loadUnaligned(fromByteOffset: offset, as: UInt32.self))
    }
}
