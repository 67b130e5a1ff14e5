import CLinux

/// A file written under a temporary name and moved to its own by `commit()`, so a power cut or an interrupted
/// run leaves the old file or the new one, never half of the new one under its name. Written with pwrite(2)
/// at explicit offsets, so a zip writer can go back and complete an entry's header.
public final class AtomicFileWriter {
    public let path: String
    public let temporaryPath: String
    private let fd: Int32
    private var committed = false

    /// Creates (or empties) the temporary file with `mode`, whatever the umask: key files must be 0600.
    public init(path: String, mode: mode_t = 0o600) throws(SystemError) {
        self.path = path
        temporaryPath = path + AtomicFile.temporarySuffix
        fd = try Posix.open(temporaryPath, .writeOnly, [.create, .truncate], mode: mode)
        // From here `deinit` closes the descriptor and removes the temporary file.
        try Posix.changeMode(fd, to: mode, path: temporaryPath)
    }

    /// Closes the file; a file not committed is removed, so a full card leaves no half-written copy of a key.
    deinit {
        DescriptorIO.close(fd)
        if !committed { Posix.removeName(temporaryPath) }
    }

    /// Writes all of `bytes` at `offset`.
    public func write(_ bytes: UnsafeRawBufferPointer, at offset: Int) throws(SystemError) {
        try Posix.write(bytes, to: fd, at: offset, path: temporaryPath)
    }

    /// Writes all of `bytes` at `offset`.
    public func write(_ bytes: [UInt8], at offset: Int) throws(SystemError) {
        try Posix.write(bytes, to: fd, at: offset, path: temporaryPath)
    }

    /// Flushes the file and renames it over `path`. `durable: false` leaves out both fsyncs (the file's and
    /// the directory's), for a file rewritten every few seconds whose loss in a power cut costs nothing.
    public func commit(durable: Bool = true) throws(SystemError) {
        guard !durable || fsync(fd) == 0 else { throw .last("fsync", temporaryPath) }
        guard rename(temporaryPath, path) == 0 else { throw .last("rename", path) }
        committed = true
        // Without this the rename may not survive a power cut, and the old contents come back.
        if durable { try Posix.synchronizeDirectory(Posix.parent(of: path)) }
    }
}
