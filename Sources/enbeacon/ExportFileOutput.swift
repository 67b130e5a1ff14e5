import ENCore
import SystemIO

/// A new export file as `ExportWriter`'s output: written in place so each zip entry's local header can be
/// completed, under a temporary name until `commit()`, so a reader never sees half an export.
final class ExportFileOutput: ExportOutput {
    private let file: AtomicFileWriter
    private(set) var count = 0

    /// An export and its public key are public data: 0644, readable by whoever serves them.
    init(path: String) throws(SystemError) { file = try AtomicFileWriter(path: path, mode: 0o644) }

    func append(_ bytes: UnsafeRawBufferPointer) throws(ExportWriteError) {
        try write(bytes, at: count)
        count += bytes.count
    }

    func overwrite(at offset: Int, with bytes: UnsafeRawBufferPointer) throws(ExportWriteError) {
        try write(bytes, at: offset)
    }

    /// Flushes to the disk and moves the file to its name.
    func commit() throws(SystemError) { try file.commit() }

    private func write(_ bytes: UnsafeRawBufferPointer, at offset: Int) throws(ExportWriteError) {
        do { try file.write(bytes, at: offset) } catch { throw .output("\(file.temporaryPath): \(error.reason)") }
    }
}
