/// Where a console command came from. Commands may answer differently (`quit` only makes sense on
/// the agent's own stdin) and consent is asked for differently (see `ConsentRule`).
package enum ConsoleChannel: Hashable, Sendable, CustomStringConvertible {
    /// A person at a terminal or on a serial line: prompt, echo and line editing.
    case terminal
    /// stdin is a pipe or a file: a script, answered one command per line without prompt or echo.
    case pipe
    /// One command per connection on `DATA/console.sock`, from `enbeacon ctl`.
    case socket

    package var description: String {
        switch self {
        case .terminal: "terminal"
        case .pipe: "pipe"
        case .socket: "socket"
        }
    }
}
