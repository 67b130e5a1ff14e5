import ENCore
import SystemIO
#if canImport(Glibc)
import Glibc
#endif

/// A regular file opened read-only and read with pread(2) at explicit offsets: the source the export
/// commands stream a zip from, a window at a time, so a 60 MB export costs no more memory than a 6 KB one.
final class ReadOnlyFile: ExportByteSource {
    let path: String
    let byteCount: Int
    private let fd: Int32

    init(path: String) throws(FileProblem) {
        self.path = path
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw FileProblem(path: path, errno: errno) }
        var status = stat()
        guard fstat(fd, &status) == 0 else {
            let error = errno
            close(fd)
            throw FileProblem(path: path, errno: error)
        }
        // pread needs a seekable file, and a directory "reads" as an error much later: refuse both now.
        guard status.st_mode & S_IFMT == S_IFREG else {
            close(fd)
            let reason = status.st_mode & S_IFMT == S_IFDIR ? "is a directory" : "is not a regular file"
            throw FileProblem(path: path, reason: reason)
        }
        self.fd = fd
        byteCount = Int(status.st_size)
    }

    deinit { close(fd) }

    func read(at offset: Int, into buffer: UnsafeMutableRawBufferPointer) throws(ExportFileError) -> Int {
        do { return try Posix.read(fd, at: offset, into: buffer, path: path) } catch {
            throw .read("\(path): \(error.reason)")
        }
    }

    /// The whole file, for small ones (a PEM key, a risk configuration); refused past `limit` bytes.
    func readAll(limit: Int) throws(FileProblem) -> [UInt8] {
        guard byteCount <= limit else {
            throw FileProblem(path: path, reason: "is \(byteCount) bytes, more than the \(limit) expected")
        }
        var bytes = [UInt8](repeating: 0, count: byteCount)
        var done = 0
        while done < byteCount {
            let result = bytes.withUnsafeMutableBytes { raw in
                Result { () throws(SystemError) in
                    try Posix.read(fd, at: done, into: UnsafeMutableRawBufferPointer(rebasing: raw[done...]))
                }
            }
            let n: Int
            switch result {
            case .success(let count): n = count
            case .failure(let error): throw FileProblem(path: path, errno: error.code)
            }
            guard n > 0 else { throw FileProblem(path: path, reason: "shrank while being read") }
            done += n
        }
        return bytes
    }

    /// The whole file as UTF-8 text.
    func readText(limit: Int) throws(FileProblem) -> String {
        guard let text = String(validating: try readAll(limit: limit), as: UTF8.self) else {
            throw FileProblem(path: path, reason: "is not UTF-8 text")
        }
        return text
    }

    static func exists(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0
    }
}

/// A file that cannot be opened, read or written, as one line: `PATH: reason`.
struct FileProblem: Error, CustomStringConvertible {
    let path: String
    let reason: String

    init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    init(path: String, errno code: Int32) {
        self.init(path: path, reason: String(cString: strerror(code)))
    }

    var description: String { "\(path): \(reason)" }
}
