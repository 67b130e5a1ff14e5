/// A command that ran but failed: exit status 1 and this one line on stderr.
struct CommandFailure: Error, CustomStringConvertible {
    let message: String
    init(_ message: String) { self.message = message }
    var description: String { message }
}
