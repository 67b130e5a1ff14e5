#if canImport(Glibc)
import Glibc
#endif

/// Small state written so that a power cut leaves either the old or the new file, never a mix:
/// write a temporary file, fsync it, rename it over the old one, fsync the directory.
public enum AtomicFile {
    public static func write(_ bytes: [UInt8], to path: String, mode: mode_t = 0o600) throws(FileError) {
        let temporary = path + ".tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
        guard fd >= 0 else { throw FileError(path: temporary, call: "open", code: errno) }
        // The mode argument is filtered by the umask; keys must be 0600 whatever the umask is.
        guard fchmod(fd, mode) == 0 else { let e = errno; close(fd); throw FileError(path: temporary, call: "fchmod", code: e) }
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { let e = errno; close(fd); throw FileError(path: temporary, call: "write", code: e) }
            offset += n
        }
        guard fsync(fd) == 0 else { let e = errno; close(fd); throw FileError(path: temporary, call: "fsync", code: e) }
        close(fd)
        guard rename(temporary, path) == 0 else { throw FileError(path: path, call: "rename", code: errno) }
        let directory = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
        let dirfd = open(directory.isEmpty ? "/" : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dirfd >= 0 {
            _ = fsync(dirfd)
            close(dirfd)
        }
    }

    /// Creates `path` (and missing parents) with `mode`, and tightens an existing directory to it.
    public static func makeDirectory(_ path: String, mode: mode_t = 0o700) throws(FileError) {
        var prefix = path.hasPrefix("/") ? "/" : ""
        for part in path.split(separator: "/") {
            prefix += part
            if mkdir(prefix, mode) != 0 && errno != EEXIST { throw FileError(path: prefix, call: "mkdir", code: errno) }
            prefix += "/"
        }
        guard chmod(path, mode) == 0 else { throw FileError(path: path, call: "chmod", code: errno) }
    }
}

public struct FileError: Error, Equatable, CustomStringConvertible {
    public var path: String
    public var call: String
    public var code: Int32
    public var description: String { "\(path): \(call) failed: \(String(cString: strerror(code)))" }
}
