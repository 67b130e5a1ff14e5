import CLinux

/// A failed system call: which call, on which file if there is one, and the errno it left.
///
/// The one error of the system edge: the store, the console, the transports and the loop all report
/// failures of the kernel in this shape. The store has no other failure mode: damaged records are skipped
/// and reported, never thrown, so that a badge always starts.
public struct SystemError: Error, Hashable, Sendable, CustomStringConvertible {
    public var call: String
    public var path: String?
    public var code: Int32

    public init(call: String, path: String? = nil, code: Int32) {
        self.call = call
        self.path = path
        self.code = code
    }

    /// The error the last failing call in this thread left in `errno`.
    public static func last(_ call: String, _ path: String? = nil) -> SystemError {
        SystemError(call: call, path: path, code: errno)
    }

    /// The system's words for the errno, e.g. "No space left on device".
    public var reason: String { String(cString: strerror(code)) }

    public var description: String {
        guard let path else { return "\(call): \(reason) (errno \(code))" }
        return "\(path): \(call) failed: \(reason)"
    }
}
