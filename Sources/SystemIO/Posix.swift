import CLinux

/// The few system-call loops every file writer here needs (EINTR, short writes), written once.
public enum Posix {
    /// Opens `path`, retrying on EINTR, with O_CLOEXEC so a spawned child never inherits it.
    public static func open(_ path: String, _ flags: Int32, mode: mode_t = 0o600) throws(SystemError) -> Int32 {
        while true {
            let fd = enb_open(path, flags | O_CLOEXEC, mode)
            if fd >= 0 { return fd }
            if errno != EINTR { throw .last("open", path) }
        }
    }

    /// How a file is opened, for callers that do not see the C library's O_ constants.
    public enum Access: Sendable { case readOnly, writeOnly, readWrite }

    /// What else open(2) is asked to do.
    public struct OpenOptions: OptionSet, Sendable {
        public let rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }
        public static let create = OpenOptions(rawValue: O_CREAT)
        public static let exclusive = OpenOptions(rawValue: O_EXCL)
        public static let truncate = OpenOptions(rawValue: O_TRUNC)
        public static let nonBlocking = OpenOptions(rawValue: O_NONBLOCK)
        /// A terminal opened this way never becomes the process's controlling terminal.
        public static let noControllingTerminal = OpenOptions(rawValue: O_NOCTTY)
    }

    /// Opens `path` as `access` asks, retrying on EINTR, with O_CLOEXEC.
    public static func open(_ path: String, _ access: Access, _ options: OpenOptions = [],
                            mode: mode_t = 0o600) throws(SystemError) -> Int32 {
        let flags: Int32 = switch access {
        case .readOnly: O_RDONLY
        case .writeOnly: O_WRONLY
        case .readWrite: O_RDWR
        }
        return try open(path, flags | options.rawValue, mode: mode)
    }

    /// Takes an exclusive flock on `fd` without waiting: false when another open file description holds it.
    public static func tryLockExclusively(_ fd: Int32, path: String? = nil) throws(SystemError) -> Bool {
        if flock(fd, LOCK_EX | LOCK_NB) == 0 { return true }
        if errno == EWOULDBLOCK { return false }
        throw .last("flock", path)
    }

    /// Cuts the file to `length` bytes.
    public static func truncate(_ fd: Int32, to length: Int64, path: String? = nil) throws(SystemError) {
        guard ftruncate(fd, off_t(length)) == 0 else { throw .last("ftruncate", path) }
    }

    /// Sets the mode of the file open on `fd` when it is a regular file (a device such as /dev/null keeps its own).
    public static func restrictRegularFile(_ fd: Int32, to mode: mode_t) {
        if (try? status(of: fd))?.kind == .regular { _ = fchmod(fd, mode) }
    }

    /// Moves the descriptor's position to `offset` from the start (best effort: a failure shows in the next write).
    public static func seek(_ fd: Int32, to offset: Int64) { _ = lseek(fd, off_t(offset), SEEK_SET) }

    /// Whether `fd` is a terminal.
    public static func isTerminal(_ fd: Int32) -> Bool { isatty(fd) == 1 }

    /// Whether `fd` is a pipe or a socket (a script's stdin), as against /dev/null or a regular file.
    public static func isPipeOrSocket(_ fd: Int32) -> Bool {
        let kind = (try? status(of: fd))?.kind
        return kind == .fifo || kind == .socket
    }

    /// Whether anything exists at `path` (a marker file: its content does not matter).
    public static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }

    /// Removes the name `path` (best effort: a file already gone is no failure).
    public static func removeName(_ path: String) { _ = unlink(path) }

    /// This process's ID.
    public static var processID: Int32 { getpid() }

    /// Writes all of `bytes` at `offset` (pwrite, so the file position never matters).
    public static func write(_ bytes: [UInt8], to fd: Int32, at offset: Int, path: String) throws(SystemError) {
        let failure: SystemError? = bytes.withUnsafeBytes { raw in
            do throws(SystemError) { try write(raw, to: fd, at: offset, path: path) } catch { return error }
            return nil
        }
        if let failure { throw failure }
    }

    /// Writes all of `bytes` at `offset`.
    public static func write(_ bytes: UnsafeRawBufferPointer, to fd: Int32, at offset: Int, path: String) throws(SystemError) {
        var done = 0
        while done < bytes.count {
            let n = pwrite(fd, bytes.baseAddress! + done, bytes.count - done, off_t(offset + done))
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw n == 0 ? SystemError(call: "pwrite", path: path, code: EIO) : .last("pwrite", path) }
            done += n
        }
    }

    /// Writes all of `bytes` at the descriptor's position, waiting as a blocking descriptor does: for files
    /// (a btsnoop log) and the short-lived command-line tools' stdout. A write that makes no progress is
    /// reported as a full disk.
    public static func writeAll(_ bytes: UnsafeRawBufferPointer, to fd: Int32, path: String? = nil) throws(SystemError) {
        var done = 0
        while done < bytes.count {
            let n = CLinux.write(fd, bytes.baseAddress! + done, bytes.count - done)
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw n == 0 ? SystemError(call: "write", path: path, code: ENOSPC) : .last("write", path) }
            done += n
        }
    }

    /// Sends all of `bytes` on a blocking socket; MSG_NOSIGNAL makes a vanished peer EPIPE, not SIGPIPE.
    /// EAGAIN means the socket's SO_SNDTIMEO expired.
    public static func sendAll(_ bytes: UnsafeRawBufferPointer, to fd: Int32) throws(SystemError) {
        var done = 0
        while done < bytes.count {
            let n = CLinux.send(fd, bytes.baseAddress! + done, bytes.count - done, Int32(MSG_NOSIGNAL))
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw n == 0 ? SystemError(call: "send", code: EPIPE) : .last("send") }
            done += n
        }
    }

    /// One blocking recv(2), retried on EINTR: the count received, 0 when the peer has closed. EAGAIN means
    /// the socket's SO_RCVTIMEO expired.
    public static func receive(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(SystemError) -> Int {
        while true {
            let n = recv(fd, buffer.baseAddress, buffer.count, 0)
            if n >= 0 { return n }
            if errno != EINTR { throw .last("recv") }
        }
    }

    /// One pread(2) at `offset`, retried on EINTR: the count read, 0 at the end of the file.
    public static func read(_ fd: Int32, at offset: Int, into buffer: UnsafeMutableRawBufferPointer,
                            path: String? = nil) throws(SystemError) -> Int {
        guard buffer.count > 0 else { return 0 }
        while true {
            let n = pread(fd, buffer.baseAddress, buffer.count, off_t(offset))
            if n >= 0 { return n }
            if errno != EINTR { throw .last("pread", path) }
        }
    }

    /// Reads up to `buffer.count` bytes at `offset` (pread); fewer only at the end of the file, 0 past it.
    public static func readFully(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: Int,
                                  path: String) throws(SystemError) -> Int {
        guard buffer.count > 0 else { return 0 }
        var done = 0
        while done < buffer.count {
            let n = pread(fd, buffer.baseAddress! + done, buffer.count - done, off_t(offset + done))
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { throw .last("pread", path) }
            if n == 0 { break }
            done += n
        }
        return done
    }

    /// Reads the whole file behind `fd`. With `skippingUnreadableBlocks`, a 4 KiB block the device
    /// cannot read (EIO: a worn card's bad sector) comes back as zeros instead of failing the read, so it
    /// costs the records in it and not the whole file.
    public static func readAll(_ fd: Int32, path: String, skippingUnreadableBlocks: Bool = false) throws(SystemError) -> [UInt8] {
        var status = stat()
        guard fstat(fd, &status) == 0 else { throw .last("fstat", path) }
        var bytes = [UInt8](repeating: 0, count: Int(status.st_size))
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeMutableBytes { raw in
                pread(fd, raw.baseAddress! + done, raw.count - done, off_t(done))
            }
            if n < 0 && errno == EINTR { continue }
            if n < 0 && errno == EIO && skippingUnreadableBlocks {
                done = (done / 4_096 + 1) * 4_096  // the block stays zero
                continue
            }
            guard n >= 0 else { throw .last("pread", path) }
            if n == 0 { break }  // the file shrank under us: what was read is all there is
            done += n
        }
        if done < bytes.count { bytes.removeSubrange(done...) }
        return bytes
    }

    /// fsync on a directory: makes a created, renamed or removed entry durable.
    public static func synchronizeDirectory(_ path: String) throws(SystemError) {
        let fd = try open(path.isEmpty ? "/" : path, O_RDONLY | O_DIRECTORY)
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw .last("fsync", path) }
    }

    /// The directory part of `path` ("." for a bare name, "/" for a file at the root).
    public static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let head = String(path[..<slash])
        return head.isEmpty ? "/" : head
    }
}
