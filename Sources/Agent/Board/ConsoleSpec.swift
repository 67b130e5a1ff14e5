import SystemIO

/// Where the REPL runs, as given to `enbeacon run --console stdin|none|DEVICE[,BAUD]`.
package enum ConsoleSpec: Hashable, Sendable, CustomStringConvertible {
    /// The agent's own stdin and stdout: a terminal (prompt and editing) or a pipe (a script).
    case standardInput
    /// No REPL; the socket still serves `enbeacon ctl`.
    case none
    /// A serial line, e.g. `/dev/ttyS0,115200`, configured raw at `baud`.
    case serial(path: String, baud: Int)

    static let defaultBaud = 115_200

    /// The default: the agent's stdin when it is a terminal or a pipe, otherwise (/dev/null under
    /// systemd, a regular file) no REPL.
    package static var automatic: ConsoleSpec {
        Posix.isTerminal(0) || Posix.isPipeOrSocket(0) ? .standardInput : .none
    }

    /// Why a console setting does not parse, in words for a person.
    package struct ParseError: Error, Hashable, Sendable, CustomStringConvertible {
        package let description: String
    }

    package init(parsing text: String) throws(ParseError) {
        switch text {
        case "stdin": self = .standardInput
        case "none": self = .none
        default:
            let parts = text.split(separator: ",", omittingEmptySubsequences: false)
            guard parts.count <= 2, let path = parts.first, path.hasPrefix("/") else {
                throw ParseError(description: "expected stdin, none or DEVICE[,BAUD] such as /dev/ttyS0,115200, got '\(text)'")
            }
            var baud = Self.defaultBaud
            if parts.count == 2 {
                guard let value = Int(parts[1]), value > 0 else {
                    throw ParseError(description: "'\(parts[1])' is not a baud rate (for example 115200)")
                }
                baud = value
            }
            self = .serial(path: String(path), baud: baud)
        }
    }

    package var description: String {
        switch self {
        case .standardInput: "stdin"
        case .none: "none"
        case .serial(let path, let baud): "\(path),\(baud)"
        }
    }
}
