import ENCore
import SystemIO
#if canImport(Glibc)
import Glibc
#endif

/// A new file written with pwrite(2), so `ExportWriter` can go back and complete each zip entry's local
/// header. It is written under a temporary name and renamed into place by `commit()`, so a reader never
/// sees half an export and an interrupted run leaves no file that looks complete.
final class WritableFile: ExportOutput {
    let path: String
    private let temporaryPath: String
    private let fd: Int32
    private(set) var count = 0
    private var committed = false

    init(path: String) throws(FileProblem) {
        self.path = path
        temporaryPath = path + ".partial"
        let fd = open(temporaryPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw FileProblem(path: temporaryPath, errno: errno) }
        self.fd = fd
    }

    deinit {
        close(fd)
        if !committed { unlink(temporaryPath) }
    }

    func append(_ bytes: UnsafeRawBufferPointer) throws(ExportWriteError) {
        try write(bytes, at: count)
        count += bytes.count
    }

    func overwrite(at offset: Int, with bytes: UnsafeRawBufferPointer) throws(ExportWriteError) {
        try write(bytes, at: offset)
    }

    /// Flushes to the disk and moves the file to its name.
    func commit() throws(FileProblem) {
        guard fsync(fd) == 0 else { throw FileProblem(path: temporaryPath, errno: errno) }
        guard rename(temporaryPath, path) == 0 else { throw FileProblem(path: path, errno: errno) }
        committed = true
    }

    private func write(_ bytes: UnsafeRawBufferPointer, at offset: Int) throws(ExportWriteError) {
        do { try Posix.write(bytes, to: fd, at: offset, path: temporaryPath) } catch {
            throw .output("\(temporaryPath): \(error.reason)")
        }
    }
}
