// The config file (Sources/AgentBase/Configuration): read at every start from a file people edit on any system,
// and written back by `config set`. The input is the file's text. Checked:
// - every line that parses, written back as `KeyValueLine.text` does, parses to the same key, value and
//   comment (the spaces before the comment aside);
// - a file that parses, with any of its keys written back (`ConfigurationFile.replacing`, what `config set`
//   writes), parses to the same values, keeps its byte order mark and line ends;
// - a value `config set` accepts for a key is written so that the file reads back with that value and every
//   other value unchanged — `config set` never stores what a restart would read differently or refuse;
// - an accepted value is what its kind says (integers in range, URLs with a scheme, country codes…), and a
//   `--set KEY=VALUE` override reads back as the trimmed value;
// - board profiles (same syntax) and their console and transport settings parse without trapping, and a
//   parsed console or transport setting reads back from its description.
@testable import Agent
@testable import AgentBase
import Glibc
import ENCore
import HCI

func fuzzSetUp() {}

private func checkLine(_ line: String) {
    let entry: KeyValueLine?
    do { entry = try KeyValueLine(parsing: line) } catch {
        _ = error.message
        return
    }
    guard let entry else { return }
    invariant(!entry.key.isEmpty, "an empty key parsed")
    let reparsed: KeyValueLine?
    do { reparsed = try KeyValueLine(parsing: entry.text) } catch {
        return invariant(false, "\(Array(entry.text.unicodeScalars)) (from \(Array(line.unicodeScalars))) does not parse: \(error.message)")
    }
    // The comment is kept as written; only the spaces before it may change (`k = '' # c` is rewritten `k =  # c`).
    func comment(_ line: KeyValueLine?) -> Substring? { line.map { $0.trailingComment.drop { $0 == " " || $0 == "\t" } } }
    invariant(reparsed?.key == entry.key && reparsed?.value == entry.value && comment(reparsed) == comment(entry), "line \(Array(line.unicodeScalars)) written back as \(Array(entry.text.unicodeScalars)) "
              + "reads back as \(String(describing: reparsed))")
}

private func checkAccepted(_ key: ConfigurationKey, _ value: String) {
    // Empty is what a key with a fallback takes to follow it (a key server's limit following `sync.*`).
    if value.isEmpty && key.fallback != nil { return }
    switch key.kind {
    case .integer(let range):
        invariant(Int(value).map(range.contains) == true, "\(key.name) accepted '\(value)'")
    case .choice(let words):
        invariant(words.contains(value), "\(key.name) accepted '\(value)'")
    case .countryCode:
        invariant((2...3).contains(value.unicodeScalars.count)
                  && value.unicodeScalars.allSatisfy { ("A"..."Z").contains($0) }, "\(key.name) accepted '\(value)'")
    case .url:
        let lower = value.lowercased()
        invariant(value.isEmpty || ["http://", "https://", "file://"].contains { lower.hasPrefix($0) },
                  "\(key.name) accepted '\(value)'")
    case .path, .command, .identifier:
        invariant(!value.unicodeScalars.contains("\n"), "\(key.name) accepted a line break")
    case .secret:
        invariant(value.utf8.allSatisfy { (0x21...0x7E).contains($0) }, "\(key.name) accepted '\(Array(value.unicodeScalars))'")
    case .label:
        // What a scrape and the care-home page's table cell carry: bounded, and nothing a terminal would act on.
        invariant(value.count <= ConfigurationKind.labelMaximumLength
                  && value.unicodeScalars.allSatisfy { $0.value >= 0x20 && !(0x7F...0x9F).contains($0.value) },
                  "\(key.name) accepted '\(Array(value.unicodeScalars))'")
    case .ipv4Endpoint:
        // What the metrics endpoint will bind: the C library's own reading of the address, and a port.
        guard !value.isEmpty else { return }
        let colon = value.lastIndex(of: ":")
        var address = in_addr()
        invariant(colon.map { inet_pton(AF_INET, String(value[..<$0]), &address) == 1
                              && UInt16(value[value.index(after: $0)...]) != nil } == true,
                  "\(key.name) accepted '\(Array(value.unicodeScalars))'")
    }
}

/// What `ConfigurationFile.write` does, without the file: set, rewrite the text, read it back.
private func checkWrite(_ name: String, _ value: String, into configuration: Configuration, text: String) {
    var updated = configuration
    do { try updated.set(name, to: value) } catch {
        invariant(updated == configuration, "a refused value changed the configuration")
        return
    }
    let key = ConfigurationKey.named(name)!
    let stored = updated.fileValues[name] ?? ""
    checkAccepted(key, stored)
    if stored.isEmpty, let fallback = key.fallback.flatMap(ConfigurationKey.named) {
        invariant(updated[key] == updated[fallback] && updated.source(of: key) == .fallback,
                  "\(name) emptied does not follow \(fallback.name)")
    } else {
        invariant(updated[key] == stored && updated.source(of: key) == .file, "set did not take effect")
        if case .integer = key.kind { invariant(updated.integer(key) == Int(stored), "integer(\(name)) is not its value") }
    }
    let written = ConfigurationFile.replacing(name, with: stored, in: text)
    let reread: Configuration
    do { reread = try Configuration(parsing: written) } catch {
        return invariant(false, "config set \(name) '\(Array(stored.unicodeScalars))' writes a file that does not parse: \(error)"
                         + " — file \(Array(written.unicodeScalars))")
    }
    invariant(reread.fileValues == updated.fileValues,
              "config set \(name) '\(Array(stored.unicodeScalars))' reads back as \(reread.fileValues), set \(updated.fileValues)")
    invariant(KeyValueLines.hasByteOrderMark(written) == KeyValueLines.hasByteOrderMark(text), "the byte order mark changed")
    if text.unicodeScalars.contains("\n") {
        invariant(KeyValueLines.usesCRLF(written) == KeyValueLines.usesCRLF(text), "the line ends changed")
    }
}

private func checkBoard(_ text: String) {
    if let board = try? BoardProfile(parsing: text, defaultName: "fuzz") {
        invariant((try? TransportSpec(parsing: board.transport.description)) == board.transport,
                  "transport \(board.transport) does not read back from its description")
        if let console = board.console {
            invariant((try? ConsoleSpec(parsing: console.description)) == console,
                      "console \(console) does not read back from its description")
        }
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = inputBytes(data, size)
    let text = String(decoding: bytes, as: UTF8.self)
    var random = InputRandom(bytes)
    let lines = KeyValueLines.lines(of: text)
    for line in lines { checkLine(line) }
    checkBoard(text)

    // A value typed at the console: a line of the input, or the value of one.
    let candidate: String
    let line = lines.isEmpty ? "" : lines[random.below(lines.count)]
    if random.below(2) == 0, let entry = (try? KeyValueLine(parsing: line)) ?? nil {
        candidate = entry.value
    } else {
        candidate = line
    }
    let key = ConfigurationKey.all[random.below(ConfigurationKey.all.count)]

    // A `--set` override.
    var overridden = Configuration()
    if (try? overridden.override(line)) != nil, let equals = line.firstIndex(of: "=") {
        let name = line[..<equals].trimmingSpaces
        invariant(overridden.value(of: name) == line[line.index(after: equals)...].trimmingSpaces, "--set \(line) differs")
        invariant(overridden.source(of: ConfigurationKey.named(name)!) == .override, "--set is not an override")
    }

    let configuration: Configuration
    do { configuration = try Configuration(parsing: text) } catch {
        _ = error.description
        // A value set into an empty file, as `config set` does on a board without a config file.
        checkWrite(key.name, candidate, into: Configuration(), text: "")
        return 0
    }
    for (name, value) in configuration.fileValues {
        checkAccepted(ConfigurationKey.named(name)!, value)
        invariant((try? Configuration(parsing: ConfigurationFile.replacing(name, with: value, in: text))) == configuration,
                  "writing back \(name) unchanged changes the file's values")
    }
    checkWrite(key.name, candidate, into: configuration, text: text)
    return 0
}

// MARK: Seeds

func fuzzSeeds() -> [Seed] {
    let config = """
        # enbeacon configuration
        keyserver.style = google
        keyserver.index_url = https://keys.example/v1/index.txt#latest   # the CDN
        keyserver.public_key = "/etc/enbeacon/key server.pem"
        keyserver.key_id = 310
        keyserver.key_version = v1
        sync.interval_hours = 4
        sync.max_line_bytes = 1024
        notify.command = '/usr/local/bin/notify --to "staff" # not a comment'
        risk.threshold = 1

        """
    return [
        Seed("config", text: config),
        Seed("config-crlf-bom", text: "\u{FEFF}" + config.split(separator: "\n", omittingEmptySubsequences: false)
            .joined(separator: "\r\n")),
        Seed("config-quotes", text: "keyserver.base_url = \"  https://a.example/x \\\" y  \"\nkeyserver.country=DE\n"
             + "risk.config = '' # none\nmatch.batch_keys=200#no space\nclock.max_jump_minutes =\t60\t# tab\n"),
        Seed("config-errors", text: "sync.interval_hours = 0\nunknown.key = 1\n= value\nno equals here\nrisk.threshold = \"open\n"),
        Seed("board", text: "name = pi-zero\ntransport = uart:/dev/ttyAMA0,115200,rtscts\nclock = rtc\n"
             + "console = /dev/ttyS0,9600\nsimulated_phones = 0\nradio.calibration_confidence = 2\n"),
        Seed("board-tcp", text: "transport = tcp:127.0.0.1:9000\nconsole = stdin\n"),
    ]
}
