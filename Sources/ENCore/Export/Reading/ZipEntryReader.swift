import CZlib

/// The uncompressed bytes of one zip entry (or of a whole bare export.bin), pulled piece by piece from an
/// `ExportByteSource`: stored data is copied through, deflated data inflated 64 KiB of input at a time.
///
/// Checked on the way: the declared size within the caller's limit, a plausible compression ratio, no
/// more and no fewer bytes than declared (inflation stops one byte past the declaration, however the
/// stream is crafted), nothing after the deflate stream, and the CRC-32 — checked when the last byte has
/// been read, so a caller that acts on bytes before the end must be ready to drop what it did (the
/// signature check is the real guard; the CRC catches damage).
final class ZipEntryReader {
    static let inputChunk = 64 * 1024
    /// Real exports compress by well under 2:1 (key data is random); 100:1 is a bomb.
    static let defaultMaxCompressionRatio = 100
    /// Below this size a high ratio is harmless (a few hundred zeros compress 100:1 legitimately).
    static let ratioCheckFloor = 1 << 16

    let name: String
    /// The entry's declared uncompressed size; the reader delivers exactly this many bytes or throws.
    let expectedSize: Int
    private let source: any ExportByteSource
    private let dataRange: Range<Int>
    /// Nil for a bare file, which has no checksum.
    private let expectedCRC: UInt32?
    private var inputOffset: Int
    private var produced = 0
    private var crc = RunningCRC32()
    private var streamEnded = false
    private var finished = false
    /// Allocated so it never moves: zlib checks a pointer back to its z_stream on every call.
    private let stream: UnsafeMutablePointer<z_stream>?
    private let input: UnsafeMutableRawBufferPointer?

    /// An entry found by `ZipDirectory`.
    init(entry: ZipEntry, in source: any ExportByteSource, maxSize: Int,
         maxCompressionRatio: Int = ZipEntryReader.defaultMaxCompressionRatio) throws(ExportFileError) {
        guard entry.uncompressedSize <= maxSize else {
            throw .zip(.entryTooLarge(name: entry.name, declared: entry.uncompressedSize, limit: maxSize))
        }
        switch entry.method {
        case .stored:
            guard entry.compressedSize == entry.uncompressedSize else {
                throw .zip(.sizeMismatch(name: entry.name, declared: entry.uncompressedSize,
                                         actual: entry.compressedSize))
            }
        case .deflated:
            if entry.uncompressedSize > Self.ratioCheckFloor {
                let ratio = entry.uncompressedSize / max(entry.compressedSize, 1)
                guard ratio <= maxCompressionRatio else {
                    throw .zip(.compressionRatioTooHigh(name: entry.name, ratio: ratio, limit: maxCompressionRatio))
                }
            }
        }
        name = entry.name
        expectedSize = entry.uncompressedSize
        self.source = source
        dataRange = entry.dataRange
        expectedCRC = entry.crc32
        inputOffset = entry.dataRange.lowerBound
        if entry.method == .deflated {
            let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
            stream.initialize(to: z_stream())
            // windowBits −15: raw deflate, zip's method 8.
            guard inflateInit2_(stream, -15, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
                stream.deallocate()
                throw .zip(.corruptDeflateStream(name: entry.name, reason: "inflateInit2 failed"))
            }
            self.stream = stream
            input = .allocate(byteCount: Self.inputChunk, alignment: 16)
        } else {
            stream = nil
            input = nil
        }
    }

    /// A bare export.bin: the whole source, stored, without a checksum.
    init(wholeFile source: any ExportByteSource, name: String, maxSize: Int) throws(ExportFileError) {
        guard source.byteCount <= maxSize else { throw .tooLarge(bytes: source.byteCount, limit: maxSize) }
        self.name = name
        expectedSize = source.byteCount
        self.source = source
        dataRange = 0..<source.byteCount
        expectedCRC = nil
        inputOffset = 0
        stream = nil
        input = nil
    }

    deinit {
        if let stream {
            inflateEnd(stream)
            stream.deallocate()
        }
        input?.deallocate()
    }

    /// The next bytes of the entry, at most `buffer.count`; 0 once all `expectedSize` bytes were delivered
    /// and checked.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(ExportFileError) -> Int {
        guard !finished, buffer.count > 0 else { return 0 }
        let n = stream == nil ? try readStored(into: buffer) : try readDeflated(into: buffer)
        if n == 0 { try finish() }
        return n
    }

    /// Everything, for a small entry (export.sig).
    func readAll() throws(ExportFileError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: expectedSize + 1)
        var count = 0
        while true {
            let result: Result<Int, ExportFileError> = bytes.withUnsafeMutableBytes { raw in
                Result { () throws(ExportFileError) in
                    try read(into: UnsafeMutableRawBufferPointer(rebasing: raw[count...]))
                }
            }
            let n = try result.get()
            if n == 0 { break }
            count += n
        }
        return Array(bytes.prefix(count))
    }

    private func readStored(into buffer: UnsafeMutableRawBufferPointer) throws(ExportFileError) -> Int {
        let wanted = min(buffer.count, expectedSize - produced)
        guard wanted > 0 else { return 0 }
        let target = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<wanted])
        try source.readExactly(at: dataRange.lowerBound + produced, into: target)
        crc.update(UnsafeRawBufferPointer(target))
        produced += wanted
        return wanted
    }

    private func readDeflated(into buffer: UnsafeMutableRawBufferPointer) throws(ExportFileError) -> Int {
        guard let stream, let input else { return 0 }
        while !streamEnded {
            if stream.pointee.avail_in == 0, inputOffset < dataRange.upperBound {
                let count = min(input.count, dataRange.upperBound - inputOffset)
                try source.readExactly(at: inputOffset, into: UnsafeMutableRawBufferPointer(rebasing: input[0..<count]))
                inputOffset += count
                stream.pointee.next_in = input.baseAddress!.assumingMemoryBound(to: Bytef.self)
                stream.pointee.avail_in = uInt(count)
            }
            // One byte of headroom past the declared size: if zlib fills it, the entry lies about its size,
            // and we know without ever holding more than was declared.
            let room = min(buffer.count, expectedSize - produced + 1)
            stream.pointee.next_out = buffer.baseAddress!.assumingMemoryBound(to: Bytef.self)
            stream.pointee.avail_out = uInt(room)
            let status = inflate(stream, Z_NO_FLUSH)
            let n = room - Int(stream.pointee.avail_out)
            produced += n
            guard produced <= expectedSize else {
                throw .zip(.inflatesBeyondDeclaredSize(name: name, declared: expectedSize))
            }
            crc.update(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
            switch status {
            case Z_STREAM_END:
                let trailing = Int(stream.pointee.avail_in) + (dataRange.upperBound - inputOffset)
                guard trailing == 0 else {
                    throw .zip(.corruptDeflateStream(name: name, reason: "\(trailing) bytes after the end of the stream"))
                }
                guard produced == expectedSize else {
                    throw .zip(.sizeMismatch(name: name, declared: expectedSize, actual: produced))
                }
                streamEnded = true
            case Z_OK:
                break
            case Z_BUF_ERROR where stream.pointee.avail_in == 0 && inputOffset == dataRange.upperBound:
                // No input left and the stream is not over: it was cut short.
                throw .zip(.sizeMismatch(name: name, declared: expectedSize, actual: produced))
            case Z_BUF_ERROR:
                break
            default:
                let message = stream.pointee.msg.map { String(cString: $0) } ?? "zlib error \(status)"
                throw .zip(.corruptDeflateStream(name: name, reason: message))
            }
            if n > 0 { return n }
        }
        return 0
    }

    private func finish() throws(ExportFileError) {
        finished = true
        guard produced == expectedSize else {
            throw .zip(.sizeMismatch(name: name, declared: expectedSize, actual: produced))
        }
        if let expectedCRC, crc.value != expectedCRC {
            throw .zip(.crcMismatch(name: name, expected: expectedCRC, actual: crc.value))
        }
    }
}
