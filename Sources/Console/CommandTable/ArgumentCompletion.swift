/// What Tab offers for a command's arguments, e.g. the configuration keys after `config get`.
///
/// The source is asked each time Tab is pressed, so candidates that change while the agent runs
/// (keys added by a newer configuration) are always current.
package struct ArgumentCompletion {
    /// Candidates for the next argument, given the arguments already typed before it.
    let candidates: (_ previousArguments: [String]) -> [String]

    init(_ candidates: @escaping (_ previousArguments: [String]) -> [String]) {
        self.candidates = candidates
    }

    /// No completion.
    package static var none: ArgumentCompletion { ArgumentCompletion { _ in [] } }

    /// A fixed list for the first argument only, e.g. `live on|off`.
    package static func words(_ words: [String]) -> ArgumentCompletion {
        ArgumentCompletion { previous in previous.isEmpty ? words : [] }
    }

    /// A list computed when asked, for the first argument only, e.g. the configuration keys.
    static func firstArgument(_ source: @escaping () -> [String]) -> ArgumentCompletion {
        ArgumentCompletion { previous in previous.isEmpty ? source() : [] }
    }
}
