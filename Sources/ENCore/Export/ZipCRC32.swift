import CZlib

/// CRC-32 (the IEEE polynomial zip uses), computed by zlib. Named for zip so it cannot be confused
/// with the Store module's own helper in a file that sees both.
enum ZipCRC32 {
    static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        var crc = crc32(0, nil, 0)
        var rest = bytes
        // zlib takes a 32-bit length; feed larger buffers in pieces.
        while let base = rest.baseAddress, rest.count > 0 {
            let piece = min(rest.count, Int(UInt32.max >> 1))
            crc = crc32(crc, base.assumingMemoryBound(to: UInt8.self), UInt32(piece))
            rest = UnsafeRawBufferPointer(rebasing: rest[piece...])
        }
        return UInt32(truncatingIfNeeded: crc)
    }
}
