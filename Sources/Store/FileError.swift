#if canImport(Glibc)
import Glibc
#endif

/// A failed file-system call: which file, which call, and the errno it left.
///
/// The store has no other failure mode: damaged records are skipped and reported, never thrown,
/// so that a badge always starts.
public struct FileError: Error, Hashable, Sendable, CustomStringConvertible {
    public var path: String
    public var call: String
    public var code: Int32

    public init(path: String, call: String, code: Int32) {
        self.path = path
        self.call = call
        self.code = code
    }

    /// The error the last failing call in this thread left in `errno`.
    static func last(_ call: String, _ path: String) -> FileError {
        FileError(path: path, call: call, code: errno)
    }

    public var description: String { "\(path): \(call) failed: \(String(cString: strerror(code)))" }
}
