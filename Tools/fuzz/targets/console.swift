// The console (Sources/Console): lines typed at a terminal or serial line, piped in, or sent by anyone who
// can reach console.sock. The input is a stretch of console input: its lines go through the command
// table, the whole of it through the terminal key decoder and line editor. The table is the agent's real
// one (`AgentConsole.commandTable`: every command's name, flags, options, argument counts and consent),
// with handlers that record what they were asked instead of acting on an agent. Checked:
// - a line splits into words that, quoted back with `CommandLineWords.join`, split into the same words;
//   any words at all survive join and split;
// - a command handler runs only with a registered name, an argument count it accepts, its own flags and
//   options, and with consent: never straight from a terminal, from a pipe or the socket only with --yes;
//   a terminal's question runs the command on "yes" alone;
// - an error answer is one line with no control characters (a typed escape sequence is never echoed to
//   the terminal), and a JSON answer parses as JSON;
// - Tab completion offers sorted, distinct words that extend what was typed;
// - the line editor never holds or hands over a line longer than its limit or with a control character in
//   it, keeps its history bounded, and writes a bounded amount for each read.
@testable import Console
@testable import Agent
import ENCore
import EventLoop
#if canImport(Glibc)
import Glibc
#endif

nonisolated(unsafe) private var table: CommandTable!
nonisolated(unsafe) private var declared: [String: ConsoleCommand] = [:]
nonisolated(unsafe) private var requests: [ConsoleRequest] = []
/// Tab's answers by line prefix: the table is fixed, so they never change, and the editor asks often.
nonisolated(unsafe) private var completionCache: [String: CompletionCandidates] = [:]

private func completions(_ prefix: String) -> CompletionCandidates {
    if let known = completionCache[prefix] { return known }
    if completionCache.count > 4096 { completionCache.removeAll(keepingCapacity: true) }
    let result = table.completions(forLinePrefix: prefix)
    completionCache[prefix] = result
    return result
}

/// Removes `path` and everything under it (the scratch agent's data directory).
private func removeTree(_ path: String) {
    if let directory = opendir(path) {
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            guard name != ".", name != ".." else { continue }
            removeTree(path + "/" + name)
        }
        closedir(directory)
        rmdir(path)
    } else {
        unlink(path)
    }
}

func fuzzSetUp() {
    // The real table needs a real AgentControl, hence an agent: one that is never started, in a scratch
    // directory removed at once (its files stay open, unused).
    var template = Array("/tmp/enbeacon-fuzz-console-XXXXXX".utf8CString)
    guard let made = mkdtemp(&template) else { fatalError("mkdtemp failed") }
    let directory = String(cString: made)
    let agent: Agent
    do {
        agent = try Agent(loop: VirtualLoop(), log: .silent, dataDirectory: directory + "/data",
                          makeTransport: { fatalError("the fuzzed agent is never started") })
    } catch {
        fatalError("agent: \(error)")
    }
    let real = AgentConsole.commandTable(for: AgentControl(agent: agent, stop: {}))
    removeTree(directory)
    table = CommandTable()
    for var command in real.commands where command.name != "help" {
        declared[command.name] = command
        command.handler = { request in
            requests.append(request)
            return .text("done")
        }
        table.register(command)
    }
}

private func isControl(_ scalar: Unicode.Scalar) -> Bool {
    scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
}

private func checkWords(_ line: String) {
    guard let words = try? CommandLineWords.split(line) else { return }
    invariant((try? CommandLineWords.split(CommandLineWords.join(words))) == words,
              "\(words) do not survive join and split")
    if let (_, partial) = CommandLineWords.splitForCompletion(line) {
        invariant(!partial.unicodeScalars.contains { $0 == " " || $0 == "\t" }, "a partial word with a space")
    }
}

private func checkReply(_ outcome: ConsoleOutcome, line: String, channel: ConsoleChannel, calledBefore: Int) {
    switch outcome {
    case .nothing:
        let trimmed = line.trimmingSpaces
        invariant(trimmed.isEmpty || trimmed.hasPrefix("#"), "nothing answered to '\(line)'")
        invariant(requests.count == calledBefore, "a blank or comment line ran a command")
    case .reply(let reply, _):
        switch reply {
        case .error(let text):
            invariant(!text.unicodeScalars.contains(where: isControl), "an error echoes control characters: \(Array(text.unicodeScalars))")
        case .json(let text):
            invariant((try? JSONValue.parse(text)) != nil, "a JSON answer does not parse: \(text)")
        default:
            break
        }
    case .confirm(let question):
        invariant(channel == .terminal, "consent asked on \(channel)")
        invariant(requests.count == calledBefore, "a command needing consent ran before the answer")
        _ = question.answer("no")
        invariant(requests.count == calledBefore, "a command ran without 'yes'")
        _ = question.answer(" yes ")
        invariant(requests.count == calledBefore + 1, "'yes' did not run the command")
    }
    for request in requests[calledBefore...] {
        guard let command = declared[request.command] else {
            return invariant(false, "ran unregistered command '\(request.command)'")
        }
        invariant(command.arguments.contains(request.arguments.count), "\(request.command) ran with \(request.arguments.count) arguments")
        invariant(request.flags.isSubset(of: command.flags), "\(request.command) ran with flags \(request.flags)")
        invariant(Set(request.options.keys).isSubset(of: command.options), "\(request.command) ran with options \(request.options)")
        if command.consent.applies(toFlags: request.flags, arguments: request.arguments), case .reply = outcome {
            invariant(channel != .terminal && request.yes, "\(request.command) ran on \(channel) without consent")
        }
    }
}

private func checkCompletion(_ prefix: String) {
    let result = table.completions(forLinePrefix: prefix)
    invariant(result.candidates == Array(Set(result.candidates)).sorted(), "candidates not sorted and distinct")
    for candidate in result.candidates {
        invariant(!candidate.isEmpty && candidate.hasPrefix(result.partial), "candidate '\(candidate)' for '\(result.partial)'")
    }
}

private func checkEditor(_ bytes: [UInt8], random: inout InputRandom) {
    var settings = LineEditor.Settings()
    settings.maxLineBytes = random.below(2) == 0 ? 4096 : 8 + random.below(64)
    settings.historyLimit = 1 + random.below(8)
    // History as a session loads it: lines that were typed, so within the limit.
    var editor = LineEditor(prompt: "enbeacon> ", settings: settings, history: ["status", "keys"],
                            complete: completions)
    editor.width = 10 + random.below(120)
    editor.beginLine()
    var index = 0
    while index < bytes.count {
        let end = min(bytes.count, index + 1 + random.below(16))
        for byte in bytes[index..<end] {
            guard let event = editor.feed(byte) else { continue }
            if case .line(let line) = event {
                invariant(line.utf8.count <= settings.maxLineBytes, "a line of \(line.utf8.count) bytes, limit \(settings.maxLineBytes)")
                invariant(!line.unicodeScalars.contains(where: isControl), "a line with a control character")
            }
            editor.beginLine()
        }
        index = end
        if random.below(8) == 0 { editor.escapeTimedOut() }
        if random.below(16) == 0 { editor.printAbove("live: a beacon") }
        let output = editor.takeOutput()
        invariant(output.count <= 64 * 1024, "\(output.count) bytes written for one read")
        invariant(editor.text.utf8.count <= settings.maxLineBytes, "holds \(editor.text.utf8.count) bytes")
        invariant(!editor.text.unicodeScalars.contains(where: isControl), "holds a control character")
        invariant(editor.cursorOffset >= 0 && editor.cursorOffset <= editor.text.unicodeScalars.count, "cursor out of the line")
        invariant(editor.history.entries.count <= settings.historyLimit, "history over its limit")
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = inputBytes(data, size)
    var random = InputRandom(bytes)
    let lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false).prefix(4).map {
        String(decoding: $0, as: UTF8.self)
    }
    requests.removeAll(keepingCapacity: true)
    for line in lines { checkWords(line) }
    // The table is the costly part (it ranks every command name for a suggestion): one line of the input
    // through it, on one channel, and one completion.
    if !lines.isEmpty {
        let line = lines[random.below(lines.count)]
        let channel = [ConsoleChannel.terminal, .pipe, .socket][random.below(3)]
        checkReply(table.execute(line, channel: channel), line: line, channel: channel, calledBefore: 0)
        checkCompletion(lines[random.below(lines.count)])
    }
    // Any words at all, quoted and joined, split back into themselves.
    invariant((try? CommandLineWords.split(CommandLineWords.join(lines))) == lines,
              "\(lines) do not survive join and split")
    checkEditor(bytes, random: &random)
    return 0
}

// MARK: Seeds

func fuzzSeeds() -> [Seed] {
    [
        Seed("status", text: "status\nstatus --json\n"),
        Seed("config", text: "config set notify.command \"/usr/bin/logger -t 'en' \\\"x\\\"\" --yes\n"
             + "config get sync.max_files --json\nconfig set risk.threshold=3\nconfig\n"),
        Seed("options", text: "sightings --since=1700000000 --limit 20 --json\nkeys --reveal --yes\nkeys exprot\n"
             + "wipe -- --yes\nhelp config\nhelp keys export --json\n"),
        Seed("errors", text: "stauts\n'unterminated\nlive on --json extra\ntime set \\\n# a comment\n   \n"),
        Seed("terminal-keys", [0x73, 0x74, 0x61, 0x09, 0x1B, 0x5B, 0x44, 0x1B, 0x5B, 0x31, 0x3B, 0x35, 0x43, 0x7F, 0x17,
                               0x01, 0x0B, 0x1B, 0x5B, 0x41, 0x1B, 0x4F, 0x42, 0xC3, 0xA9, 0xCC, 0x81, 0x0D, 0x0A,
                               0x63, 0x6F, 0x6E, 0x09, 0x09, 0x20, 0x67, 0x09, 0x03, 0x04]),
        Seed("escape-noise", [0x1B] + Array("[".utf8) + [UInt8](repeating: 0x3B, count: 40) + Array("Ahello\u{1B}[3~\r".utf8)),
    ]
}
