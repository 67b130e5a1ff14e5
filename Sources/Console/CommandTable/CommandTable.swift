import ENCore
/// The console's commands, and everything about a line that does not depend on what a command does:
/// splitting, matching one- and two-word names, checking options and argument counts, `help`, Tab
/// completion, and consent.
///
/// One table serves every channel (terminal, piped stdin, the unix socket), so a command behaves the
/// same wherever it is typed. It is a reference type because the agent registers commands after the
/// sessions that use it may already exist.
package final class CommandTable {
    private var byName: [String: ConsoleCommand] = [:]

    /// A table holding only the built-in `help`.
    ///
    /// `help` is answered and completed by the table itself (see `ConsoleCommand.isTableHelp`): closures in the
    /// table's own commands that held the table would keep it alive for ever, and the board build has no weak
    /// references.
    package init() {
        var help = ConsoleCommand(
            "help", summary: "list the commands, or explain one", usage: "help [COMMAND]",
            help: "help COMMAND shows a command's usage and what it does; help GROUP lists a group (help config).",
            arguments: 0...3) { _ in .error("help is answered by its command table") }
        help.isTableHelp = true
        register(help)
    }

    /// Adds a command, replacing one of the same name.
    func register(_ command: ConsoleCommand) {
        byName[command.name] = command
        // Lines are resolved far more often than commands are registered (a few dozen, at start).
        commands = byName.values.sorted { $0.name < $1.name }
        membersByFirstWord = Dictionary(grouping: commands.filter { $0.words.count == 2 }, by: { $0.words[0] })
        firstWords = Array(Set(commands.map { $0.words[0] })).sorted()
        suggestible = Array(Set(byName.keys).union(firstWords)).sorted()
    }

    /// Every command, sorted by name.
    package private(set) var commands: [ConsoleCommand] = []
    /// The two-word commands by their first word, each list sorted by name.
    private var membersByFirstWord: [String: [ConsoleCommand]] = [:]
    /// The first word of every command, sorted.
    private var firstWords: [String] = []
    /// What an unknown first word may be a typo of: every name and every first word.
    private var suggestible: [String] = []

    package func command(named name: String) -> ConsoleCommand? { byName[name] }

    // MARK: Running a line

    /// Interprets one line typed on `channel` and, unless consent must be asked first, runs the command.
    func execute(_ line: String, channel: ConsoleChannel) -> ConsoleOutcome {
        let trimmed = line.trimmingSpaces
        if trimmed.isEmpty || trimmed.hasPrefix("#") { return .nothing }
        let words: [String]
        do {
            words = try CommandLineWords.split(trimmed)
        } catch {
            let json = trimmed.split(separator: " ").contains("--json")
            return .reply(.error("cannot read the line: \(error)"), json: json)
        }
        let json = words.contains("--json")
        switch resolve(words) {
        case .unknown(let typed, let names):
            return .reply(.error(unknownCommandMessage(typed, names)), json: json)
        case .group(let members):
            return .reply(.error("usage: " + members.map { $0.usage }.joined(separator: " | ")), json: json)
        case .command(let command, let rest):
            return run(command, rest: rest, channel: channel)
        }
    }

    private func run(_ command: ConsoleCommand, rest: ArraySlice<String>, channel: ConsoleChannel) -> ConsoleOutcome {
        let parsed: ParsedArguments
        switch parse(rest, for: command) {
        case .success(let arguments): parsed = arguments
        case .failure(let problem): return .reply(.error(usageLine(command, problem.detail)), json: rest.contains("--json"))
        }
        if parsed.help { return .reply(.text(helpText(command)), json: false) }
        let request = ConsoleRequest(command: command.name, arguments: parsed.positionals, flags: parsed.flags,
                                     options: parsed.options, json: parsed.json, yes: parsed.yes, channel: channel)
        guard command.consent.applies(toFlags: parsed.flags, arguments: parsed.positionals) else { return call(command, request) }
        let subject = command.consent.subject(command: command.name, arguments: parsed.positionals)
        switch ConsentRule.decide(command: subject, channel: channel, yes: parsed.yes) {
        case .proceed:
            return call(command, request)
        case .refuse(let reason):
            return .reply(.error(reason), json: parsed.json)
        case .ask:
            return .confirm(ConsentQuestion(command: subject, json: parsed.json) { [self] in call(command, request) })
        }
    }

    private func call(_ command: ConsoleCommand, _ request: ConsoleRequest) -> ConsoleOutcome {
        let reply = command.isTableHelp ? help(request) : command.handler(request)
        switch reply {
        case .usage(let detail):
            return .reply(.error(usageLine(command, detail)), json: request.json)
        case .deferred(let later):
            later.usageLine = { [usage = command.usage] detail in Self.usageLine(usage, detail) }
            return .reply(reply, json: request.json)
        case .text(let text) where request.json:
            // A command with nothing structured to say still answers --json with a JSON document.
            var o = JSONObject()
            o.string("message", text)
            return .reply(.json(o.text), json: true)
        default:
            return .reply(reply, json: request.json)
        }
    }

    // MARK: Names

    private enum Resolution {
        case command(ConsoleCommand, rest: ArraySlice<String>)
        /// The first word of a group with no command of its own, and no (or an option as) second word.
        case group([ConsoleCommand])
        /// What was typed and the names it may be a typo of: the suggestion is computed only for the error
        /// message, not for every Tab that resolves a partial line.
        case unknown(String, among: [String])
    }

    private func resolve(_ words: [String]) -> Resolution {
        let first = words[0]
        let second = words.count > 1 && !words[1].hasPrefix("-") ? words[1] : nil
        // A three-word command (`keys share status`) before the two-word one it extends (`keys share CODE`).
        if let second, words.count > 2, !words[2].hasPrefix("-"), let command = byName[first + " " + second + " " + words[2]] {
            return .command(command, rest: words.dropFirst(3))
        }
        if let second, let command = byName[first + " " + second] { return .command(command, rest: words.dropFirst(2)) }
        let members = groupMembers(first)
        if let command = byName[first] {
            // `keys exprot`: a typo of a subcommand, not an argument to a command that takes none.
            if let second, command.arguments.upperBound == 0, !members.isEmpty {
                return .unknown(first + " " + second, among: members.map { $0.name })
            }
            return .command(command, rest: words.dropFirst())
        }
        if !members.isEmpty {
            guard let second else { return .group(members) }
            return .unknown(first + " " + second, among: members.map { $0.name })
        }
        return .unknown(first, among: suggestible)
    }

    private func unknownCommandMessage(_ typed: String, _ names: [String]) -> String {
        let head = "unknown command '\(typed.printableExcerpt())'"
        guard let suggestion = CommandSuggestion.closest(to: typed, among: names) else { return head + "; help lists the commands" }
        return suggestion.isClose
            ? head + "; did you mean '\(suggestion.name)'?"
            : head + "; the closest is '\(suggestion.name)', help lists them all"
    }

    /// Commands named "`first` something".
    /// The commands whose name begins with `words` and goes on, sorted by name.
    private func commands(extending words: [String]) -> [ConsoleCommand] {
        commands.filter { $0.words.count > words.count && Array($0.words.prefix(words.count)) == words }
    }

    private func groupMembers(_ first: String) -> [ConsoleCommand] {
        membersByFirstWord[first] ?? []
    }

    private func secondWords(after first: String) -> [String] { groupMembers(first).map { $0.words[1] } }

    // MARK: Arguments

    private struct ParsedArguments {
        var positionals: [String] = []
        var flags: Set<String> = []
        var options: [String: String] = [:]
        var json = false
        var yes = false
        var help = false
    }

    private struct ArgumentProblem: Error {
        var detail: String?
    }

    /// `--name`, `--name VALUE`, `--name=VALUE`, positionals, and `--` before positionals that start with `--`.
    private func parse(_ words: ArraySlice<String>, for command: ConsoleCommand) -> Result<ParsedArguments, ArgumentProblem> {
        var parsed = ParsedArguments()
        var index = words.startIndex
        var optionsEnded = false
        while index < words.endIndex {
            let word = words[index]
            index += 1
            guard !optionsEnded, word.hasPrefix("--") else {
                parsed.positionals.append(word)
                continue
            }
            if word == "--" {
                optionsEnded = true
                continue
            }
            let name = word.split(separator: "=", maxSplits: 1).first.map(String.init) ?? word
            let inlineValue = word.contains("=") ? String(word.drop { $0 != "=" }.dropFirst()) : nil
            let shown = name.printableExcerpt()
            switch name {
            case "--json", "--yes", "--help":
                if inlineValue != nil { return .failure(ArgumentProblem(detail: "\(name) takes no value")) }
                if name == "--json" { parsed.json = true } else if name == "--yes" { parsed.yes = true } else { parsed.help = true }
            case _ where command.flags.contains(name):
                if inlineValue != nil { return .failure(ArgumentProblem(detail: "\(shown) takes no value")) }
                parsed.flags.insert(name)
            case _ where command.options.contains(name):
                if parsed.options[name] != nil { return .failure(ArgumentProblem(detail: "\(shown) given twice")) }
                if let inlineValue {
                    parsed.options[name] = inlineValue
                } else if index < words.endIndex, !words[index].hasPrefix("--") {
                    parsed.options[name] = words[index]
                    index += 1
                } else {
                    return .failure(ArgumentProblem(detail: "\(shown) needs a value"))
                }
            default:
                return .failure(ArgumentProblem(detail: "unknown option \(shown)"))
            }
        }
        if parsed.help { return .success(parsed) }
        guard command.arguments.contains(parsed.positionals.count) else { return .failure(ArgumentProblem(detail: nil)) }
        return .success(parsed)
    }

    private func usageLine(_ command: ConsoleCommand, _ detail: String?) -> String {
        Self.usageLine(command.usage, detail)
    }

    private static func usageLine(_ usage: String, _ detail: String?) -> String {
        "usage: \(usage)" + (detail.map { " (\($0))" } ?? "")
    }

    // MARK: Completion

    /// What Tab offers at the end of `prefix` (the line up to the cursor): command names, then a
    /// command's subcommands, options (after `-`) and argument completions.
    func completions(forLinePrefix prefix: String) -> CompletionCandidates {
        guard let (words, partial) = CommandLineWords.splitForCompletion(prefix) else { return .none }
        var candidates: [String] = []
        if words.isEmpty {
            candidates = firstWords
        } else {
            if words.count == 1 { candidates += secondWords(after: words[0]) }
            if case .command(let command, let rest) = resolve(words) {
                if partial.hasPrefix("-") {
                    candidates += command.flags + command.options + ["--json", "--help"]
                    if command.consent != .never { candidates.append("--yes") }
                } else {
                    let positionals = positionalArguments(in: rest, for: command)
                    if positionals.count < command.arguments.upperBound {
                        candidates += command.isTableHelp ? helpCompletions(positionals) : command.completion.candidates(positionals)
                    }
                }
            }
        }
        let matching = Set(candidates.filter { $0.hasPrefix(partial) && !$0.isEmpty })
        return CompletionCandidates(partial: partial, candidates: matching.sorted())
    }

    /// The positionals among already typed words, skipping options and their values.
    private func positionalArguments(in words: ArraySlice<String>, for command: ConsoleCommand) -> [String] {
        var positionals: [String] = []
        var skipNext = false
        for word in words {
            if skipNext {
                skipNext = false
            } else if word.hasPrefix("--") {
                skipNext = command.options.contains(word)
            } else {
                positionals.append(word)
            }
        }
        return positionals
    }

    // MARK: Help

    /// What Tab offers after `help`: command names, then a group's second words.
    private func helpCompletions(_ previous: [String]) -> [String] {
        switch previous.count {
        case 0: firstWords
        case 1: secondWords(after: previous[0])
        default: []
        }
    }

    private func help(_ request: ConsoleRequest) -> ConsoleReply {
        if request.arguments.isEmpty {
            return request.json ? .json(listJSON(commands)) : .text(listText("commands", commands))
        }
        let name = request.arguments.joined(separator: " ")
        // `keys` is a command and the head of `keys export`, `keys share`…: its help lists them too, or
        // nobody reading `help keys` learns that they exist.
        let longer = commands(extending: request.arguments)
        if let command = byName[name] {
            if request.json { return .json(commandJSON(command)) }
            let text = helpText(command)
            return .text(longer.isEmpty ? text : text + "\n" + listText("\(name) commands", longer))
        }
        if !longer.isEmpty {
            return request.json ? .json(listJSON(longer)) : .text(listText("\(name) commands", longer))
        }
        guard case .unknown(let typed, let names) = resolve(request.arguments) else {
            return .error(unknownCommandMessage(name, []))
        }
        return .error(unknownCommandMessage(typed, names))
    }

    /// `help COMMAND` and `COMMAND --help`.
    func helpText(_ command: ConsoleCommand) -> String {
        var lines = ["usage: \(command.usage)", command.summary]
        if !command.help.isEmpty { lines.append(command.help) }
        if command.consent != .never { lines.append(ConsentRule.summary) }
        return lines.joined(separator: "\n")
    }

    private func listText(_ title: String, _ list: [ConsoleCommand]) -> String {
        let column = min(list.map { $0.name.count }.max() ?? 0, 20) + 2
        var lines = ["\(title) (help COMMAND explains one; --json after a command answers in JSON):"]
        for command in list {
            let padding = String(repeating: " ", count: max(column - command.name.count, 1))
            lines.append("  " + command.name + padding + command.summary)
        }
        return lines.joined(separator: "\n")
    }

    private func listJSON(_ list: [ConsoleCommand]) -> String {
        var o = JSONObject()
        o.raw("commands", JSON.array(list.map { commandJSON($0, withHelp: false) }))
        return o.text
    }

    private func commandJSON(_ command: ConsoleCommand, withHelp: Bool = true) -> String {
        var o = JSONObject()
        o.string("name", command.name)
        o.string("summary", command.summary)
        o.string("usage", command.usage)
        if withHelp { o.string("help", command.help) }
        o.string("consent", consentName(command.consent))
        return o.text
    }

    private func consentName(_ consent: ConsentRequirement) -> String {
        switch consent {
        case .never: "never"
        case .always: "always"
        case .withFlag(let flag): flag
        case .forFirstArgument(let words): words.sorted().joined(separator: " ")
        }
    }
}
