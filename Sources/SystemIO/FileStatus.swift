import CLinux

/// What stat(2) says about a file that the code here decides on: its kind, its size, and for a device
/// which one it is.
public struct FileStatus: Hashable, Sendable {
    public enum Kind: Hashable, Sendable {
        case regular, directory, socket, fifo, characterDevice, blockDevice, symbolicLink, unknown
    }

    public var kind: Kind
    public var byteCount: Int
    /// The device a character or block device file stands for (st_rdev): two names of one terminal share it.
    public var device: UInt64

    init(_ status: stat) {
        // C's S_IF* are int macros beside st_mode's mode_t (the Glibc overlay converted them; the board build
        // has no overlay), so each is converted here, once.
        kind = switch status.st_mode & mode_t(S_IFMT) {
        case mode_t(S_IFREG): .regular
        case mode_t(S_IFDIR): .directory
        case mode_t(S_IFSOCK): .socket
        case mode_t(S_IFIFO): .fifo
        case mode_t(S_IFCHR): .characterDevice
        case mode_t(S_IFBLK): .blockDevice
        case mode_t(S_IFLNK): .symbolicLink
        default: .unknown
        }
        byteCount = Int(status.st_size)
        device = UInt64(status.st_rdev)
    }

    /// The kind in words, for a message that refuses the file ("is a directory, not a regular file").
    public var kindName: String {
        switch kind {
        case .regular: "a regular file"
        case .directory: "a directory"
        case .socket: "a socket"
        case .fifo: "a FIFO"
        case .characterDevice: "a character device"
        case .blockDevice: "a block device"
        case .symbolicLink: "a symbolic link"
        case .unknown: "of an unknown type"
        }
    }
}

extension Posix {
    /// stat(2) of `path`, following a symbolic link.
    public static func status(of path: String) throws(SystemError) -> FileStatus {
        var status = stat()
        guard stat(path, &status) == 0 else { throw .last("stat", path) }
        return FileStatus(status)
    }

    /// fstat(2) of the file open on `fd`.
    public static func status(of fd: Int32, path: String? = nil) throws(SystemError) -> FileStatus {
        var status = stat()
        guard fstat(fd, &status) == 0 else { throw .last("fstat", path) }
        return FileStatus(status)
    }

    /// Whether this process may read `path` (access(2) with R_OK).
    public static func isReadable(_ path: String) -> Bool { access(path, R_OK) == 0 }

    /// Sets the mode of the file open on `fd`: open's and mkdir's modes are filtered by the umask, and a file
    /// holding keys must be 0600 whatever it is.
    public static func changeMode(_ fd: Int32, to mode: mode_t, path: String? = nil) throws(SystemError) {
        guard fchmod(fd, mode) == 0 else { throw .last("fchmod", path) }
    }

    /// Makes the descriptor close in a program this process executes (for one a library opened without O_CLOEXEC).
    public static func setCloseOnExec(_ fd: Int32) { _ = enb_fcntl(fd, F_SETFD, FD_CLOEXEC) }

    /// Creates a new directory named `prefix` followed by six random characters, 0700: its path.
    public static func makeTemporaryDirectory(_ prefix: String) throws(SystemError) -> String {
        var template = Array((prefix + "XXXXXX").utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        guard let made else { throw .last("mkdtemp", Posix.parent(of: prefix)) }
        return String(cString: made)
    }

    /// Removes the empty directory `path` (best effort: one not empty or already gone stays as it is).
    public static func removeDirectory(_ path: String) { _ = rmdir(path) }

    /// Removes `path` and, when it is a directory, everything under it (best effort, for scratch directories).
    public static func removeTree(_ path: String) {
        guard let names = try? fileNames(in: path) else { _ = unlink(path); return }
        for name in names where unlink(path + "/" + name) != 0 { removeTree(path + "/" + name) }
        _ = rmdir(path)
    }

    /// The names in `directory`, without `.` and `..`: the one readdir loop.
    public static func fileNames(in directory: String) throws(SystemError) -> [String] {
        guard let stream = opendir(directory) else { throw .last("opendir", directory) }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }
}
