import Store
import SystemIO

/// The config file given with `--config`: read at start, written back atomically (0600) when a key changes.
///
/// Writing back edits the text rather than regenerating it: the changed key's line is replaced in place (or
/// appended), so comments, blank lines, order and every other key stay as the operator wrote them.
package struct ConfigurationFile: Sendable {
    package let path: String

    package init(path: String) { self.path = path }

    /// The file's configuration. A missing or unreadable file is an error: a path the operator named must not
    /// silently mean "defaults".
    package func load() throws(ConfigurationError) -> Configuration {
        let text: String
        do { text = try TextFile.contents(of: path) } catch { throw ConfigurationError(error.reason, at: path) }
        do { return try Configuration(parsing: text) } catch {
            throw ConfigurationError(error.message, at: [path, error.location].compactMap { $0 }.joined(separator: " "))
        }
    }

    /// Sets one key in the file and returns `configuration` with it set. The key and value are checked first,
    /// and the file is rewritten only if all of it still parses; on any error neither the file nor the
    /// returned configuration changes.
    package func write(_ name: String, _ value: String, into configuration: Configuration) throws(ConfigurationError) -> Configuration {
        var updated = configuration
        try updated.set(name, to: value)
        let stored = updated.fileValues[name] ?? ""
        // A file that exists but cannot be read must not be replaced by one holding this key alone.
        let current: String
        do { current = try TextFile.contents(of: path) } catch {
            guard error.isMissing else { throw ConfigurationError("cannot update it: \(error.reason)", at: path) }
            current = ""
        }
        let text = Self.replacing(name, with: stored, in: current)
        _ = try Configuration(parsing: text)
        do { try AtomicFile.write(Array(text.utf8), to: path, mode: 0o600) } catch {
            throw ConfigurationError("cannot write the file: \(error)", at: path)
        }
        return updated
    }

    /// `text` with the line setting `name` replaced by `name = value` (quoted if reading it back needs that,
    /// its comment kept), or with that line appended. The file's line ends (LF or CR LF) and a byte order
    /// mark stay as they were.
    static func replacing(_ name: String, with value: String, in text: String) -> String {
        let lineEnd = KeyValueLines.usesCRLF(text) ? "\r\n" : "\n"
        var lines = KeyValueLines.lines(of: text)
        if lines.last == "" { lines.removeLast() }
        var entry = KeyValueLine(key: name, value: value)
        // A line that does not parse is left for `Configuration(parsing:)` to report; it is never the one replaced.
        func parsed(_ line: String) -> KeyValueLine? { (try? KeyValueLine(parsing: line)) ?? nil }
        if let index = lines.firstIndex(where: { parsed($0)?.key == name }), let current = parsed(lines[index]) {
            entry.trailingComment = current.trailingComment
            lines[index] = entry.text
        } else {
            lines.append(entry.text)
        }
        return (KeyValueLines.hasByteOrderMark(text) ? "\u{FEFF}" : "") + lines.joined(separator: lineEnd) + lineEnd
    }
}
