import Store
import SystemIO
#if canImport(Glibc)
import Glibc
#endif

/// The config file given with `--config`: read at start, written back atomically (0600) when a key changes.
///
/// Writing back edits the text rather than regenerating it: the changed key's line is replaced in place (or
/// appended), so comments, blank lines, order and every other key stay as the operator wrote them.
public struct ConfigurationFile: Sendable {
    public let path: String

    public init(path: String) { self.path = path }

    /// The file's configuration. A missing or unreadable file is an error: a path the operator named must not
    /// silently mean "defaults".
    public func load() throws(ConfigurationError) -> Configuration {
        let text: String
        do { text = try TextFile.contents(of: path) } catch { throw ConfigurationError(error.reason, at: path) }
        do { return try Configuration(parsing: text) } catch {
            throw ConfigurationError(error.message, at: [path, error.location].compactMap { $0 }.joined(separator: " "))
        }
    }

    /// Sets one key in the file and returns `configuration` with it set. The key and value are checked first,
    /// and the file is rewritten only if all of it still parses; on any error neither the file nor the
    /// returned configuration changes.
    public func write(_ name: String, _ value: String, into configuration: Configuration) throws(ConfigurationError) -> Configuration {
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

    /// `text` with the line setting `name` replaced by `name = value`, or with that line appended.
    static func replacing(_ name: String, with value: String, in text: String) -> String {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        let entry = "\(name) = \(value)"
        let index = lines.firstIndex { line in
            let content = line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            guard let equals = content.firstIndex(of: "=") else { return false }
            return content[..<equals].trimmingSpaces == name
        }
        if let index {
            // Keep a trailing comment on the line: it usually explains the value.
            let comment = lines[index].firstIndex(of: "#").map { " " + lines[index][$0...] } ?? ""
            lines[index] = entry + comment
        } else {
            lines.append(entry)
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
