import ENCore
import SystemIO
#if canImport(Glibc)
import Glibc
#endif

/// A downloaded export file as the source `ExportFile` reads it from, 64 KiB at a time with pread.
///
/// The descriptor is opened on the first read and let go with `close()`: a file waiting for the rest of its
/// batch holds no descriptor, however many wait, and reopens when its keys are read.
final class DownloadedExport: ExportByteSource {
    let path: String
    let byteCount: Int
    private var fd: Int32 = -1

    init(path: String) throws(SystemError) {
        self.path = path
        var status = stat()
        guard stat(path, &status) == 0 else { throw .last("stat", path) }
        byteCount = Int(status.st_size)
    }

    deinit { close() }

    func read(at offset: Int, into buffer: UnsafeMutableRawBufferPointer) throws(ExportFileError) -> Int {
        do {
            if fd < 0 { fd = try Posix.open(path, O_RDONLY) }
            return try Posix.readFully(fd, into: buffer, at: offset, path: path)
        } catch {
            throw .read(error.description)
        }
    }

    func close() {
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
    }
}
