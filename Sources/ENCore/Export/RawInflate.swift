import CZlib

/// Inflates a raw deflate stream (zip's method 8: no zlib or gzip wrapper) whose size is known in
/// advance, never producing more than that size plus one byte, however the stream is crafted.
enum RawInflate {
    enum Failure: Error, Equatable {
        /// The stream holds more than the expected size.
        case exceedsExpectedSize
        /// The stream ended early (or its input ran out) after this many bytes.
        case shortOutput(actual: Int)
        case corrupt(String)
    }

    /// zip sizes are 32-bit (ZIP64 is refused), so every buffer here fits zlib's 32-bit counters.
    static let maxExpectedSize = Int(UInt32.max) - 1

    static func inflate(_ input: UnsafeRawBufferPointer, expectedSize: Int) throws(Failure) -> [UInt8] {
        precondition(expectedSize >= 0 && expectedSize <= maxExpectedSize && input.count <= Int(UInt32.max))
        var stream = z_stream()
        // windowBits -15: raw deflate with the largest window.
        guard inflateInit2_(&stream, -15, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw .corrupt("inflateInit2 failed")
        }
        defer { inflateEnd(&stream) }
        // One byte of headroom: if zlib writes into it, the stream is larger than it claims, and we
        // know without ever holding more than the caller agreed to.
        var output = [UInt8](repeating: 0, count: expectedSize + 1)
        let status = output.withUnsafeMutableBytes { out -> Int32 in
            stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress?.assumingMemoryBound(to: Bytef.self))
            stream.avail_in = uInt(input.count)
            stream.next_out = out.baseAddress?.assumingMemoryBound(to: Bytef.self)
            stream.avail_out = uInt(out.count)
            return CZlib.inflate(&stream, Z_FINISH)
        }
        let produced = Int(stream.total_out)
        switch status {
        case Z_STREAM_END:
            guard produced <= expectedSize else { throw .exceedsExpectedSize }
            guard produced == expectedSize else { throw .shortOutput(actual: produced) }
            guard stream.avail_in == 0 else { throw .corrupt("\(stream.avail_in) bytes after the end of the stream") }
        case Z_BUF_ERROR where stream.avail_out == 0:
            throw .exceedsExpectedSize
        case Z_BUF_ERROR:
            throw .shortOutput(actual: produced)
        default:
            let message = stream.msg.map { String(cString: $0) } ?? "zlib error \(status)"
            throw .corrupt(message)
        }
        output.removeLast()
        return output
    }
}
