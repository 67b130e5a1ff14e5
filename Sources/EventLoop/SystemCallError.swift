import Glibc

/// A failed system call: which one, and the errno it left.
public struct SystemCallError: Error, Hashable, Sendable, CustomStringConvertible {
    public var call: String
    public var code: Int32

    public init(call: String, code: Int32) {
        self.call = call
        self.code = code
    }

    /// The error the last failing call in this thread left in `errno`.
    public static func lastError(of call: String) -> SystemCallError {
        SystemCallError(call: call, code: errno)
    }

    public var description: String {
        "\(call): \(String(cString: strerror(code))) (errno \(code))"
    }
}
