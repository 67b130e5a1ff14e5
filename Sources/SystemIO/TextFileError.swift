import CLinux

/// Why `TextFile` did not read a file.
public enum TextFileError: Error, Hashable, Sendable, CustomStringConvertible {
    /// It could not be opened or read: missing, not permitted, an I/O error.
    case system(SystemError)
    /// A FIFO, a device, a directory or a socket: reading it could block the loop or never end.
    case notRegular(path: String, kind: String)
    case tooLarge(path: String, size: Int, limit: Int)
    /// Its bytes are not UTF-8, where text was expected (a PEM key, a JSON configuration).
    case notText(path: String)

    public var path: String {
        switch self {
        case .system(let error): error.path ?? ""
        case .notRegular(let path, _), .tooLarge(let path, _, _), .notText(let path): path
        }
    }

    /// What is wrong, without the path.
    public var reason: String {
        switch self {
        case .system(let error): error.reason
        case .notRegular(_, let kind): "is \(kind), not a regular file"
        case .tooLarge(_, let size, let limit): "is \(size) bytes, more than the \(limit) allowed"
        case .notText: "is not UTF-8 text"
        }
    }

    /// The file does not exist (a config file `config set` may create).
    public var isMissing: Bool {
        if case .system(let error) = self { return error.code == ENOENT }
        return false
    }

    public var description: String { "cannot read \(path): \(reason)" }
}
