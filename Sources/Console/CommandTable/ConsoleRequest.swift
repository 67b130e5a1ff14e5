/// One parsed console command, as its handler sees it.
///
/// The command table has already matched the name, checked the number of arguments and every option
/// against the command's declaration, and settled consent, so a handler only interprets values.
struct ConsoleRequest: Hashable, Sendable {
    /// The command's name as registered, e.g. `config set`.
    package var command: String
    /// Positional arguments, in order, after the name.
    package var arguments: [String]
    /// The command's own flags that were given, e.g. `--reveal`.
    var flags: Set<String>
    /// The command's own options that were given, with their values, e.g. `--limit` → `20`.
    package var options: [String: String]
    /// `--json`: answer with one JSON document (or JSON lines for a stream).
    package var json: Bool
    /// `--yes` was given. Consent has already been settled by the table; this is for information only.
    package var yes: Bool
    package var channel: ConsoleChannel

    init(command: String, arguments: [String] = [], flags: Set<String> = [], options: [String: String] = [:],
                json: Bool = false, yes: Bool = false, channel: ConsoleChannel) {
        self.command = command
        self.arguments = arguments
        self.flags = flags
        self.options = options
        self.json = json
        self.yes = yes
        self.channel = channel
    }

    package func has(_ flag: String) -> Bool { flags.contains(flag) }

    package func option(_ name: String) -> String? { options[name] }
}
