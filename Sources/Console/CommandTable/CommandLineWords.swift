/// How a console line splits into words, and how a word is written so that it splits back unchanged.
///
/// The syntax is a small, predictable subset of the shell's: words are separated by spaces or tabs;
/// `'…'` keeps everything literally; `"…"` keeps everything except that `\"` and `\\` stand for `"` and `\`;
/// outside quotes a backslash takes the next character literally. There is no expansion of any kind:
/// a care-home console has no use for variables or globs, and every feature here is one more way
/// for a typo to do something surprising.
package enum CommandLineWords {
    /// A line that cannot be split: an open quote or a trailing backslash.
    package struct SyntaxError: Error, Hashable, Sendable, CustomStringConvertible {
        package let description: String
    }

    private enum Quoting { case none, single, double }

    /// The words of `line`. An empty quoted word (`""`) is kept as an empty word.
    package static func split(_ line: String) throws(SyntaxError) -> [String] {
        var words: [String] = []
        var word = String.UnicodeScalarView()
        var inWord = false
        var quoting = Quoting.none
        var escaped = false
        for scalar in line.unicodeScalars {
            if escaped {
                // Inside double quotes only `\"` and `\\` are escapes; any other backslash stays as written.
                if quoting == .double && scalar != "\"" && scalar != "\\" { word.append("\\") }
                word.append(scalar)
                escaped = false
                continue
            }
            switch quoting {
            case .single:
                if scalar == "'" { quoting = .none } else { word.append(scalar) }
            case .double:
                if scalar == "\"" {
                    quoting = .none
                } else if scalar == "\\" {
                    escaped = true
                } else {
                    word.append(scalar)
                }
            case .none:
                switch scalar {
                case " ", "\t":
                    if inWord { words.append(String(word)) }
                    word = String.UnicodeScalarView()
                    inWord = false
                case "'":
                    quoting = .single
                    inWord = true
                case "\"":
                    quoting = .double
                    inWord = true
                case "\\":
                    escaped = true
                    inWord = true
                default:
                    word.append(scalar)
                    inWord = true
                }
            }
        }
        if escaped { throw SyntaxError(description: "the line ends with a lone backslash") }
        if quoting != .none { throw SyntaxError(description: "a quote is not closed") }
        if inWord { words.append(String(word)) }
        return words
    }

    /// `word` as it must be typed: unchanged when it holds only characters that need no quoting,
    /// otherwise in double quotes with `"` and `\` escaped.
    static func quote(_ word: String) -> String {
        if !word.isEmpty && word.unicodeScalars.allSatisfy(isPlain) { return word }
        var quoted = "\""
        for scalar in word.unicodeScalars {
            if scalar == "\"" || scalar == "\\" { quoted.unicodeScalars.append("\\") }
            quoted.unicodeScalars.append(scalar)
        }
        return quoted + "\""
    }

    /// Words joined into one line that `split` turns back into the same words.
    package static func join(_ words: [String]) -> String {
        words.map(quote).joined(separator: " ")
    }

    /// The word being typed at the end of `prefix` (what Tab completes) and the complete words before it.
    /// Nil while a quote or an escape is open: completing inside one would have to guess the quoting.
    static func splitForCompletion(_ prefix: String) -> (words: [String], partial: String)? {
        let lastSeparator = prefix.unicodeScalars.lastIndex { $0 == " " || $0 == "\t" }
        let partialStart = lastSeparator.map { prefix.unicodeScalars.index(after: $0) } ?? prefix.startIndex
        let partial = String(prefix.unicodeScalars[partialStart...])
        guard !partial.unicodeScalars.contains(where: { $0 == "'" || $0 == "\"" || $0 == "\\" }) else { return nil }
        guard let words = try? split(String(prefix.unicodeScalars[..<partialStart])) else { return nil }
        return (words, partial)
    }

    private static func isPlain(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "a"..."z", "A"..."Z", "0"..."9", "-", "_", ".", "/", ":", "=", ",", "+", "@", "%": true
        default: false
        }
    }
}
