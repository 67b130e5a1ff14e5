import ENCore
import SystemIO

/// An export file on disk as the source `ExportFile` reads, 64 KiB at a time: a download waiting in the data
/// directory, or the file `enbeacon export` and `enbeacon match` are given.
///
/// `close()` lets the descriptor go until the next read: a download waiting for the rest of its batch holds
/// none, however many wait.
package final class ExportFileSource: ExportByteSource {
    package let file: ReadOnlyFile

    package init(path: String) throws(TextFileError) { file = try ReadOnlyFile(path: path) }

    package var path: String { file.path }
    package var byteCount: Int { file.byteCount }

    package func read(at offset: Int, into buffer: UnsafeMutableRawBufferPointer) throws(ExportFileError) -> Int {
        do { return try file.read(at: offset, into: buffer) } catch { throw .read(error.description) }
    }

    package func close() { file.close() }
}
