import CLinux

/// A regular file read with pread(2) at explicit offsets: an export streamed a window at a time (a 60 MB
/// file costs no more memory than a 6 KB one), a sightings file read by lines, a PEM key read whole.
///
/// It is checked when made: only a regular file is accepted (a directory or a device would fail much later,
/// or a FIFO nobody writes would block), opened non-blocking so the check itself cannot hang. `close()` lets
/// the descriptor go and the next read reopens it, so files waiting for the rest of a batch hold none.
public final class ReadOnlyFile {
    public let path: String
    /// The size when the file was opened.
    public let byteCount: Int
    private var fd: Int32

    public init(path: String) throws(TextFileError) {
        self.path = path
        let fd: Int32
        do { fd = try Posix.open(path, .readOnly, [.nonBlocking, .noControllingTerminal]) } catch { throw .system(error) }
        let status: FileStatus
        do { status = try Posix.status(of: fd, path: path) } catch {
            DescriptorIO.close(fd)
            throw .system(error)
        }
        guard status.kind == .regular else {
            DescriptorIO.close(fd)
            throw .notRegular(path: path, kind: status.kindName)
        }
        self.fd = fd
        byteCount = status.byteCount
    }

    deinit { close() }

    /// Copies up to `buffer.count` bytes from `offset`; fewer only at the end of the file, 0 past it.
    public func read(at offset: Int, into buffer: UnsafeMutableRawBufferPointer) throws(SystemError) -> Int {
        if fd < 0 { fd = try Posix.open(path, .readOnly) }
        return try Posix.readFully(fd, into: buffer, at: offset, path: path)
    }

    /// The whole file, for small ones (a PEM key, a risk configuration); refused past `limit` bytes.
    public func readAll(limit: Int) throws(TextFileError) -> [UInt8] {
        guard byteCount <= limit else { throw .tooLarge(path: path, size: byteCount, limit: limit) }
        do {
            if fd < 0 { fd = try Posix.open(path, .readOnly) }
            return try Posix.readAll(fd, path: path)
        } catch {
            throw .system(error)
        }
    }

    /// The whole file as UTF-8 text, refused when it is not.
    public func readText(limit: Int) throws(TextFileError) -> String {
        guard let text = String(validating: try readAll(limit: limit), as: UTF8.self) else { throw .notText(path: path) }
        return text
    }

    /// Lets the descriptor go; a later read opens the file again.
    public func close() {
        if fd >= 0 { DescriptorIO.close(fd) }
        fd = -1
    }
}
