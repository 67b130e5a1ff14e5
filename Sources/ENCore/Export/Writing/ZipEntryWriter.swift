import CZlib

/// Writes one zip entry as its data arrives: a local header with blank CRC and sizes, the data (stored,
/// or raw-deflated in 64 KiB steps), then the header again with the real values. Nothing of the entry is
/// held beyond zlib's window and one output buffer.
final class ZipEntryWriter {
    static let outputChunk = 64 * 1024

    private(set) var entry: WrittenZipEntry
    private var crc = RunningCRC32()
    /// Allocated, not a stored property: zlib keeps a pointer back to its z_stream and checks it on every
    /// call, so the struct must never move.
    private let stream: UnsafeMutablePointer<z_stream>?
    private let chunk: UnsafeMutableRawBufferPointer

    /// Starts an entry at the end of `output` with its provisional local header. A static function rather
    /// than a generic initialiser: Embedded Swift refuses generic initialisers in classes, final or not.
    static func start<Output: ExportOutput>(
        name: String, method: ZipEntry.Method, level: Int32, timestamp: DOSTimestamp, output: inout Output
    ) throws(ExportWriteError) -> ZipEntryWriter {
        guard output.count <= ZipRecordLayout.limit else { throw .tooLarge(bytes: output.count) }
        let writer = try ZipEntryWriter(name: name, method: method, level: level, timestamp: timestamp,
                                        localHeaderOffset: output.count)
        try output.append(ZipRecordLayout.localHeader(writer.entry))
        return writer
    }

    private init(
        name: String, method: ZipEntry.Method, level: Int32, timestamp: DOSTimestamp, localHeaderOffset: Int
    ) throws(ExportWriteError) {
        entry = WrittenZipEntry(name: Array(name.utf8), method: method, timestamp: timestamp,
                                localHeaderOffset: localHeaderOffset)
        chunk = .allocate(byteCount: Self.outputChunk, alignment: 16)
        if method == .deflated {
            let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
            stream.initialize(to: z_stream())
            // windowBits −15: raw deflate, as zip's method 8 stores it (no zlib header or trailer).
            let status = deflateInit2_(stream, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION,
                                       Int32(MemoryLayout<z_stream>.size))
            guard status == Z_OK else {
                stream.deallocate()
                chunk.deallocate()
                throw .zlib("deflateInit2 returned \(status)")
            }
            self.stream = stream
        } else {
            stream = nil
        }
    }

    deinit {
        if let stream {
            deflateEnd(stream)
            stream.deallocate()
        }
        chunk.deallocate()
    }

    func write<Output: ExportOutput>(_ bytes: UnsafeRawBufferPointer, to output: inout Output) throws(ExportWriteError) {
        guard bytes.count > 0 else { return }
        crc.update(bytes)
        entry.uncompressedSize += bytes.count
        guard entry.uncompressedSize <= ZipRecordLayout.limit else { throw .tooLarge(bytes: entry.uncompressedSize) }
        guard let stream else {
            try emit(bytes, to: &output)
            return
        }
        stream.pointee.next_in = UnsafeMutablePointer(mutating: bytes.baseAddress!.assumingMemoryBound(to: Bytef.self))
        stream.pointee.avail_in = uInt(bytes.count)
        while stream.pointee.avail_in > 0 {
            try deflateStep(flush: Z_NO_FLUSH, to: &output)
        }
    }

    /// Ends the data and rewrites the local header; returns the entry for the central directory.
    func finish<Output: ExportOutput>(to output: inout Output) throws(ExportWriteError) -> WrittenZipEntry {
        if let stream {
            stream.pointee.next_in = nil
            stream.pointee.avail_in = 0
            while try deflateStep(flush: Z_FINISH, to: &output) != Z_STREAM_END {}
        }
        entry.crc32 = crc.value
        try output.overwrite(at: entry.localHeaderOffset, with: ZipRecordLayout.localHeader(entry))
        return entry
    }

    /// One deflate call into the chunk buffer, whose output goes straight to `output`.
    @discardableResult
    private func deflateStep<Output: ExportOutput>(flush: Int32, to output: inout Output) throws(ExportWriteError) -> Int32 {
        guard let stream else { return Z_STREAM_END }
        stream.pointee.next_out = chunk.baseAddress!.assumingMemoryBound(to: Bytef.self)
        stream.pointee.avail_out = uInt(chunk.count)
        let status = CZlib.deflate(stream, flush)
        guard status == Z_OK || status == Z_STREAM_END || status == Z_BUF_ERROR else {
            throw .zlib("deflate returned \(status)")
        }
        let produced = chunk.count - Int(stream.pointee.avail_out)
        try emit(UnsafeRawBufferPointer(rebasing: chunk[0..<produced]), to: &output)
        return status
    }

    private func emit<Output: ExportOutput>(_ bytes: UnsafeRawBufferPointer, to output: inout Output) throws(ExportWriteError) {
        guard bytes.count > 0 else { return }
        try output.append(bytes)
        entry.compressedSize += bytes.count
        guard output.count <= ZipRecordLayout.limit else { throw .tooLarge(bytes: output.count) }
    }
}
