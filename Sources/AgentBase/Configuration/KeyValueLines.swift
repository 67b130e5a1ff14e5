/// `key = value` lines: the format of the config file and of board profiles.
///
/// Written for files that come from people's editors on any system: LF or CRLF line ends, and a UTF-8
/// byte order mark at the start, are accepted. `#` starts a comment at the start of a line or after a
/// space or tab, so a URL's `#fragment` is part of the value. A value may be quoted, to keep spaces at
/// its ends or a ` #` in it: `"…"` (where `\"` and `\\` stand for `"` and `\`) or `'…'` (taken as is).
package enum KeyValueLines {
    package static func parse(_ text: String) throws(ConfigurationError) -> [(key: String, value: String, line: Int)] {
        var out: [(key: String, value: String, line: Int)] = []
        for (index, line) in lines(of: text).enumerated() {
            do throws(KeyValueLine.Problem) {
                guard let entry = try KeyValueLine(parsing: line) else { continue }
                out.append((entry.key, entry.value, index + 1))
            } catch {
                throw ConfigurationError(line: index + 1, error.message)
            }
        }
        return out
    }

    /// The lines of `text` without their ends (LF, or CR LF), and without a byte order mark. Scalars, not
    /// characters: Swift counts CR LF as one character, which is not an LF.
    static func lines(of text: String) -> [String] {
        var scalars = Substring(text).unicodeScalars
        if scalars.first == "\u{FEFF}" { scalars = scalars.dropFirst() }
        return scalars.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            String(line.last == "\r" ? line.dropLast() : line)
        }
    }

    /// Whether `text` ends its lines with CR LF (judged by its first line end), so a rewrite keeps them.
    static func usesCRLF(_ text: String) -> Bool {
        guard let newline = text.unicodeScalars.firstIndex(of: "\n"), newline > text.unicodeScalars.startIndex else { return false }
        return text.unicodeScalars[text.unicodeScalars.index(before: newline)] == "\r"
    }

    /// Whether `text` starts with a UTF-8 byte order mark.
    static func hasByteOrderMark(_ text: String) -> Bool {
        text.unicodeScalars.first == "\u{FEFF}"
    }
}
