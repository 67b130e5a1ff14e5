/// Random-access bytes an export is read from: a file (the command line's export, the agent's download)
/// or memory (tests).
///
/// `ExportFile` reads through it in bounded pieces — the zip's directory, then export.bin 64 KiB at a
/// time — so a 60 MB export never has to be in memory. ENCore does no I/O itself; sources that touch
/// the file system live with their callers.
///
/// Class-bound so that `ExportFile` can hold one as `any ExportByteSource` in Embedded Swift, which refuses
/// existentials of other protocols; a generic `ExportFile<Source>` would spread a type parameter through
/// every caller for no gain, as every source is an object with an identity (an open file) anyway.
public protocol ExportByteSource: AnyObject {
    /// The size of the whole source.
    var byteCount: Int { get }
    /// Copies up to `buffer.count` bytes from `offset`; fewer only at the end of the source, 0 at or past it.
    func read(at offset: Int, into buffer: UnsafeMutableRawBufferPointer) throws(ExportFileError) -> Int
}

extension ExportByteSource {
    /// Fills `buffer` from `offset`, or throws if the source ends first (it shrank since `byteCount`).
    func readExactly(at offset: Int, into buffer: UnsafeMutableRawBufferPointer) throws(ExportFileError) {
        var done = 0
        while done < buffer.count {
            let n = try read(at: offset + done, into: UnsafeMutableRawBufferPointer(rebasing: buffer[done...]))
            guard n > 0 else {
                throw .read("the source ends at byte \(offset + done), before the \(offset + buffer.count) expected")
            }
            done += n
        }
    }

    func readExactly(at offset: Int, count: Int) throws(ExportFileError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        let result: Result<Void, ExportFileError> = bytes.withUnsafeMutableBytes { raw in
            Result { () throws(ExportFileError) in try readExactly(at: offset, into: raw) }
        }
        try result.get()
        return bytes
    }
}

/// An export already in memory (a test's bytes) read through the same bounded path.
public final class InMemoryExportSource: ExportByteSource, Sendable {
    public let bytes: [UInt8]

    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    public var byteCount: Int { bytes.count }

    public func read(at offset: Int, into buffer: UnsafeMutableRawBufferPointer) throws(ExportFileError) -> Int {
        guard offset >= 0, offset < bytes.count else { return 0 }
        let n = min(buffer.count, bytes.count - offset)
        bytes.withUnsafeBytes { source in
            buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[offset..<(offset + n)]))
        }
        return n
    }
}
