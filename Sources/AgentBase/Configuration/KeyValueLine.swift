import ENCore

/// One `key = value` line of a config file or board profile (see `KeyValueLines` for the syntax), and how
/// `config set` writes one back so that it reads back the same.
package struct KeyValueLine: Equatable, Sendable {
    package struct Problem: Error, Equatable {
        package var message: String
    }

    package var key: String
    package var value: String
    /// The comment after the value with the spaces before it (`   # the CDN`), or "": kept when the line
    /// is rewritten, since it usually explains the value.
    var trailingComment: String

    init(key: String, value: String, trailingComment: String = "") {
        self.key = key
        self.value = value
        self.trailingComment = trailingComment
    }

    /// The entry on `line` (without its line end); nil for a blank or comment line.
    package init?(parsing line: String) throws(Problem) {
        let scalars = Array(line.unicodeScalars)
        var index = 0
        func isSpace(_ i: Int) -> Bool { scalars[i] == " " || scalars[i] == "\t" }
        func startsComment(_ i: Int) -> Bool { scalars[i] == "#" && (i == 0 || isSpace(i - 1)) }
        func text(_ range: Range<Int>) -> String {
            var view = String.UnicodeScalarView()
            view.append(contentsOf: scalars[range])
            return String(view)
        }
        while index < scalars.count, isSpace(index) { index += 1 }
        guard index < scalars.count, !startsComment(index) else { return nil }

        // The key: up to `=`; a comment before any `=` means the line has none.
        let keyStart = index
        while index < scalars.count, scalars[index] != "=", !startsComment(index) { index += 1 }
        guard index < scalars.count, scalars[index] == "=" else {
            throw Problem(message: "expected 'key = value', got '\(text(keyStart..<index).trimmingSpaces)'")
        }
        let key = text(keyStart..<index).trimmingSpaces
        guard !key.isEmpty else { throw Problem(message: "missing key before '='") }
        // Every key is a plain name; anything else (a stray CR before a `#`, a NUL) would not survive being
        // written back by `config set`, so it is refused here with the line's number rather than misread later.
        guard key.utf8.allSatisfy(Self.isKeyByte) else {
            throw Problem(message: "'\(key.printableExcerpt())' is not a key: letters, digits, '.', '_' and '-' only")
        }
        index += 1
        while index < scalars.count, isSpace(index) { index += 1 }

        var value = ""
        if index < scalars.count, scalars[index] == "\"" || scalars[index] == "'" {
            let quote = scalars[index]
            index += 1
            var closed = false
            var view = String.UnicodeScalarView()
            while index < scalars.count {
                let scalar = scalars[index]
                index += 1
                if scalar == quote {
                    closed = true
                    break
                }
                if quote == "\"", scalar == "\\", index < scalars.count {
                    view.append(scalars[index])
                    index += 1
                } else {
                    view.append(scalar)
                }
            }
            guard closed else { throw Problem(message: "\(key): a quote is not closed") }
            value = String(view)
            let afterQuote = index
            while index < scalars.count, isSpace(index) { index += 1 }
            guard index == scalars.count || (startsComment(index) && index > afterQuote) else {
                throw Problem(message: "\(key): unexpected text after the quoted value")
            }
            self.init(key: key, value: value, trailingComment: index < scalars.count ? text(afterQuote..<scalars.count) : "")
            return
        }
        let valueStart = index
        while index < scalars.count, !startsComment(index) { index += 1 }
        var valueEnd = index
        while valueEnd > valueStart, isSpace(valueEnd - 1) { valueEnd -= 1 }
        value = text(valueStart..<valueEnd)
        self.init(key: key, value: value, trailingComment: index < scalars.count ? text(valueEnd..<scalars.count) : "")
    }

    /// `key = value` and the comment, the value quoted when it would not read back the same bare: spaces
    /// or tabs at its ends, a quote at its start, or a `#` that would start a comment.
    package var text: String {
        // A comment needs a space before it to stay a comment.
        let separator = trailingComment.unicodeScalars.first.map { $0 == " " || $0 == "\t" } ?? true ? "" : " "
        return "\(key) = \(Self.quotedIfNeeded(value))\(separator)\(trailingComment)"
    }

    private static func isKeyByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"): true
        default: false
        }
    }

    static func quotedIfNeeded(_ value: String) -> String {
        let scalars = Array(value.unicodeScalars)
        guard let first = scalars.first, let last = scalars.last else { return value }
        let isSpace: (Unicode.Scalar) -> Bool = { $0 == " " || $0 == "\t" }
        let commentInside = scalars.indices.contains { scalars[$0] == "#" && ($0 == 0 || isSpace(scalars[$0 - 1])) }
        guard isSpace(first) || isSpace(last) || first == "\"" || first == "'" || commentInside else { return value }
        var quoted = String.UnicodeScalarView()
        quoted.append("\"")
        for scalar in scalars {
            if scalar == "\"" || scalar == "\\" { quoted.append("\\") }
            quoted.append(scalar)
        }
        quoted.append("\"")
        return String(quoted)
    }
}
