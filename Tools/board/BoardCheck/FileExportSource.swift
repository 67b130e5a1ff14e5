import CBoardLibc
import ENCore

/// An export file read in place with pread(2), as the agent reads its downloads: ENCore asks for bounded
/// pieces, so a fixture is never loaded whole. Offsets cross into C as 64-bit off_t (the build defines
/// _FILE_OFFSET_BITS=64), so a 32-bit board reads past 2 GiB the day a file is that large.
final class FileExportSource: ExportByteSource {
    private let file: UnsafeMutablePointer<FILE>
    let byteCount: Int

    init?(path: String) {
        guard let file = fopen(path, "rb") else { return nil }
        let end = lseek(fileno(file), 0, SEEK_END)
        // An Int that cannot hold the size (a 32-bit board, a file past 2 GiB) is refused, not truncated.
        guard end >= 0, let size = Int(exactly: end) else {
            fclose(file)
            return nil
        }
        self.file = file
        byteCount = size
    }

    deinit { fclose(file) }

    func read(at offset: Int, into buffer: UnsafeMutableRawBufferPointer) throws(ExportFileError) -> Int {
        guard offset >= 0, offset < byteCount, buffer.count > 0 else { return 0 }
        let n = pread(fileno(file), buffer.baseAddress, buffer.count, off_t(offset))
        guard n >= 0 else { throw .read("pread failed at byte \(offset)") }
        return n
    }
}
