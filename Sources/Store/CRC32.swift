import CZlib

/// CRC-32 (the zlib/IEEE polynomial) over a run of byte buffers, via zlib.
enum CRC32 {
    static func checksum(_ parts: UnsafeRawBufferPointer...) -> UInt32 {
        var crc = crc32(0, nil, 0)
        for part in parts where part.count > 0 {
            crc = crc32(crc, part.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt32(part.count))
        }
        return UInt32(truncatingIfNeeded: crc)
    }
}
