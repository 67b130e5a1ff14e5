import CZlib

/// CRC-32 (zip's polynomial, computed by zlib) over data that arrives in pieces: the writer and the
/// reader never hold a whole entry, so the checksum is carried from one piece to the next.
struct RunningCRC32 {
    private(set) var value: UInt32 = 0

    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        var crc = uLong(value)
        var rest = bytes
        // zlib takes a 32-bit length; feed larger buffers in pieces.
        while let base = rest.baseAddress, rest.count > 0 {
            let piece = min(rest.count, Int(UInt32.max >> 1))
            crc = crc32(crc, base.assumingMemoryBound(to: UInt8.self), UInt32(piece))
            rest = UnsafeRawBufferPointer(rebasing: rest[piece...])
        }
        value = UInt32(truncatingIfNeeded: crc)
    }
}
