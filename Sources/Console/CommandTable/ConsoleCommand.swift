/// One console command, registered by the agent as data: the table does the parsing, checking,
/// help, completion and consent, so the handler only does the work.
package struct ConsoleCommand {
    /// One word, two or three (`status`, `config set`, `keys share status`); lowercase letters, digits and `-`. A
    /// three-word command extends the two-word one before it, whose arguments cannot then begin with its third word.
    package var name: String
    /// One line for the `help` list.
    package var summary: String
    /// The usage line without the word "usage", e.g. `config set KEY VALUE`.
    package var usage: String
    /// More explanation for `help NAME`; may be empty.
    package var help: String
    /// How many positional arguments the command takes.
    package var arguments: ClosedRange<Int>
    /// Flags without a value that the command understands, e.g. `--reveal`. `--json`, `--yes` and
    /// `--help` are understood by every command and need not be listed.
    var flags: [String]
    /// Options that take a value (`--limit N` or `--limit=N`), e.g. `--since`, `--limit`.
    package var options: [String]
    var completion: ArgumentCompletion
    var consent: ConsentRequirement
    /// Runs on the loop; must return promptly (use `.deferred` or `.stream` for anything slow).
    var handler: (ConsoleRequest) -> ConsoleReply
    /// The table's built-in `help`, which the table that runs it answers and completes from its own commands
    /// instead of calling `handler`: a handler capturing the table would form a cycle nothing breaks.
    var isTableHelp = false

    init(_ name: String, summary: String, usage: String? = nil, help: String = "",
                arguments: ClosedRange<Int> = 0...0, flags: [String] = [], options: [String] = [],
                completion: ArgumentCompletion = .none, consent: ConsentRequirement = .never,
                handler: @escaping (ConsoleRequest) -> ConsoleReply) {
        precondition(Self.isValidName(name), "console command name '\(name)': one to three words of a-z, 0-9 and -")
        precondition((flags + options).allSatisfy { $0.hasPrefix("--") && $0.count > 2 }, "\(name): options start with --")
        self.name = name
        self.summary = summary
        self.help = help
        self.arguments = arguments
        self.flags = flags
        self.options = options
        self.completion = completion
        self.consent = consent
        self.handler = handler
        if let usage {
            self.usage = usage
        } else {
            var parts = [name] + flags.map { "[\($0)]" } + options.map { "[\($0) VALUE]" }
            if consent == .always { parts.append("[--yes]") }
            self.usage = parts.joined(separator: " ")
        }
    }

    /// The name's words: one, two for a command in a group, three for one extending a two-word command.
    var words: [String] { name.split(separator: " ").map(String.init) }

    static func isValidName(_ name: String) -> Bool {
        let words = name.split(separator: " ", omittingEmptySubsequences: false)
        return (1...3).contains(words.count) && words.allSatisfy { word in
            !word.isEmpty && !word.hasPrefix("-") && word.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" }
        }
    }
}
