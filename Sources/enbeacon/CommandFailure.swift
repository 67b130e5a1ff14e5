/// A command that ran but failed: exit status 1 and this one line on stderr.
struct CommandFailure: Error, CustomStringConvertible {
    let message: String
    init(_ message: String) { self.message = message }
    var description: String { message }

    /// Runs `body`; its error, whatever its type, becomes a failure that says it. For a run of steps that each
    /// fail in their own type (typed throws: the board build, Embedded Swift, has no `any Error` to print).
    static func of<T, E: Error & CustomStringConvertible>(_ body: () throws(E) -> T) throws(CommandFailure) -> T {
        do { return try body() } catch { throw CommandFailure("\(error)") }
    }
}
