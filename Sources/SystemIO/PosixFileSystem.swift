import CLinux

/// The real file system, through CLinux. Open, so that a test or a simulation changes only the calls it
/// is about (skipping fsync, failing writes, writing in pieces) and inherits the rest.
open class PosixFileSystem: FileSystem {
    public init() {}

    open func replaceAtomically(_ path: String, with bytes: [UInt8]) throws(SystemError) {
        try AtomicFile.write(bytes, to: path)
    }

    open func makeDirectory(_ path: String) throws(SystemError) {
        try AtomicFile.makeDirectory(path, mode: 0o700)
    }

    open func fileNames(in directory: String) throws(SystemError) -> [String] {
        guard let stream = opendir(directory) else { throw .last("opendir", directory) }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    open func contents(of path: String) throws(SystemError) -> [UInt8] {
        let fd = try Posix.open(path, O_RDONLY)
        defer { close(fd) }
        return try Posix.readAll(fd, path: path, skippingUnreadableBlocks: true)
    }

    open func createFile(_ path: String) throws(SystemError) {
        let fd = try Posix.open(path, O_WRONLY | O_CREAT | O_EXCL, mode: 0o600)
        defer { close(fd) }
        // open's mode is filtered by the umask; sightings are personal data, 0600 whatever it is.
        guard fchmod(fd, 0o600) == 0 else { throw .last("fchmod", path) }
    }

    open func write(_ bytes: [UInt8], to path: String, at offset: Int) throws(SystemError) {
        let fd = try Posix.open(path, O_WRONLY)
        defer { close(fd) }
        try Posix.write(bytes, to: fd, at: offset, path: path)
    }

    open func synchronizeFile(_ path: String) throws(SystemError) {
        let fd = try Posix.open(path, O_WRONLY)
        defer { close(fd) }
        // fdatasync, not fsync: the new size is flushed either way, the mtime (a second metadata
        // write on the card for nothing we read back) is not.
        guard fdatasync(fd) == 0 else { throw .last("fdatasync", path) }
    }

    open func synchronizeDirectory(_ path: String) throws(SystemError) {
        try Posix.synchronizeDirectory(path)
    }

    open func truncateFile(_ path: String, to length: Int) throws(SystemError) {
        guard truncate(path, off_t(length)) == 0 else { throw .last("truncate", path) }
    }

    open func removeFile(_ path: String) throws(SystemError) {
        guard unlink(path) == 0 || errno == ENOENT else { throw .last("unlink", path) }
    }
}
