import SystemIO

/// The terminal history kept across restarts in `DATA/console_history`: one line per entry, mode 0600
/// (lines may name configuration values), replaced atomically so a power cut leaves the old or the new.
package struct ConsoleHistoryFile: Hashable, Sendable {
    static let fileName = "console_history"
    package let path: String

    package init(dataDirectory: String) {
        path = dataDirectory + "/" + Self.fileName
    }

    /// The last `limit` entries, skipping any longer than `maxLineBytes`; empty when there is no file.
    package func load(limit: Int, maxLineBytes: Int = 4096) -> [String] {
        guard let text = TextFile.read(path, limit: max(limit, 1) * (maxLineBytes + 1)) else { return [] }
        let lines = text.split(separator: "\n").map(String.init).filter { $0.utf8.count <= maxLineBytes }
        return Array(lines.suffix(limit))
    }

    /// Writes `entries`, less any that carries a health authority's verification code (`keys share CODE`):
    /// a code is a one-time secret, useful for the Up arrow while staff are at the terminal but not on disk.
    func save(_ entries: [String]) throws(SystemError) {
        let text = entries.filter { !Self.holdsShareCode($0) }.map { $0 + "\n" }.joined()
        try AtomicFile.write(Array(text.utf8), to: path, mode: 0o600)
    }

    static func holdsShareCode(_ line: String) -> Bool {
        guard let words = try? CommandLineWords.split(line), words.count >= 3,
              words[0] == "keys", words[1] == "share" else { return false }
        return words[2] != "status" && words[2] != "cancel"
    }
}
