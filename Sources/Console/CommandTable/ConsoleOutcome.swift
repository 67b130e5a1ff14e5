import ENCore

/// What the command table made of one line, for the channel to act on.
package enum ConsoleOutcome {
    /// A blank line or a `#` comment: nothing to answer.
    case nothing
    /// An answer; `json` says whether the line asked for JSON, which also shapes error answers.
    /// Never `.usage`: the table has already turned that into an error naming the command's usage.
    case reply(ConsoleReply, json: Bool)
    /// A command that needs consent on a terminal: ask, then pass the next line to `answer`.
    case confirm(ConsentQuestion)
}

/// The pending question for a consent command on a terminal (see `ConsentRule`).
package struct ConsentQuestion {
    package let command: String
    let json: Bool
    let proceed: () -> ConsoleOutcome

    /// The prompt under which the answer is typed.
    var prompt: String { ConsentRule.question(for: command) }

    /// Runs the command if `line` is exactly `yes` (surrounding spaces aside), otherwise does nothing and
    /// says so.
    package func answer(_ line: String) -> ConsoleOutcome {
        if line.trimmingSpaces == "yes" { return proceed() }
        return .reply(.error("\(command): not confirmed, nothing done"), json: json)
    }
}
