/// Why a btsnoop capture could not be written. Carries `errno` so the log line names the cause.
public enum BtsnoopFileError: Error, Hashable, Sendable, CustomStringConvertible {
    case openFailed(path: String, errno: Int32)
    case writeFailed(errno: Int32)
    /// The file was closed before the write.
    case closed

    public var description: String {
        switch self {
        case .openFailed(let path, let code): "cannot open btsnoop file \(path): errno \(code)"
        case .writeFailed(let code): "btsnoop write failed: errno \(code)"
        case .closed: "btsnoop file is closed"
        }
    }
}
