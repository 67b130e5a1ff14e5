/// A strict recursive-descent reader of RFC 8259 JSON over UTF-8 bytes.
///
/// Strict because configurations decide who gets notified: a typo should stop the agent with a message, not
/// quietly yield a different document. So no comments, trailing commas, leading zeros, NaN, lone surrogates,
/// raw control characters in strings, or duplicate member names. Nesting is bounded so that a hostile file
/// cannot exhaust the stack.
struct JSONParser {
    static let maximumDepth = 64

    private let bytes: [UInt8]
    private var position = 0
    private var depth = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    mutating func document() throws(JSONSyntaxError) -> JSONValue {
        skipWhitespace()
        let value = try self.value()
        skipWhitespace()
        guard position == bytes.count else { throw error("unexpected text after the document") }
        return value
    }

    // MARK: - Values

    private mutating func value() throws(JSONSyntaxError) -> JSONValue {
        guard let byte = peek() else { throw error("unexpected end of document, expected a value") }
        switch byte {
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
        default: throw error("unexpected character, expected a value")
        }
    }

    private mutating func object() throws(JSONSyntaxError) -> JSONValue {
        try enterContainer()
        position += 1  // {
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if peek() == UInt8(ascii: "}") {
            position += 1
            depth -= 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard peek() == UInt8(ascii: "\"") else { throw error("expected a member name in double quotes") }
            let nameOffset = position
            let name = try string()
            guard members[name] == nil else {
                throw JSONSyntaxError(offset: nameOffset, reason: "duplicate member \"\(name)\"")
            }
            skipWhitespace()
            try expect(":", "expected ':' after a member name")
            skipWhitespace()
            members[name] = try value()
            skipWhitespace()
            if peek() == UInt8(ascii: ",") {
                position += 1
                continue
            }
            try expect("}", "expected ',' or '}' in an object")
            depth -= 1
            return .object(members)
        }
    }

    private mutating func array() throws(JSONSyntaxError) -> JSONValue {
        try enterContainer()
        position += 1  // [
        var elements: [JSONValue] = []
        skipWhitespace()
        if peek() == UInt8(ascii: "]") {
            position += 1
            depth -= 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try value())
            skipWhitespace()
            if peek() == UInt8(ascii: ",") {
                position += 1
                continue
            }
            try expect("]", "expected ',' or ']' in an array")
            depth -= 1
            return .array(elements)
        }
    }

    private mutating func enterContainer() throws(JSONSyntaxError) {
        depth += 1
        guard depth <= Self.maximumDepth else { throw error("nested deeper than \(Self.maximumDepth) levels") }
    }

    // MARK: - Numbers

    /// Checks the RFC grammar itself, then lets the standard library convert the validated text.
    private mutating func number() throws(JSONSyntaxError) -> Double {
        let start = position
        if peek() == UInt8(ascii: "-") { position += 1 }
        guard let first = peek(), isDigit(first) else { throw error("expected a digit") }
        position += 1
        if first == UInt8(ascii: "0"), let next = peek(), isDigit(next) {
            throw error("leading zeros are not allowed")
        }
        skipDigits()
        if peek() == UInt8(ascii: ".") {
            position += 1
            guard let next = peek(), isDigit(next) else { throw error("expected a digit after '.'") }
            skipDigits()
        }
        if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
            position += 1
            if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { position += 1 }
            guard let next = peek(), isDigit(next) else { throw error("expected a digit in the exponent") }
            skipDigits()
        }
        let text = String(decoding: bytes[start..<position], as: UTF8.self)
        guard let value = Double(text), value.isFinite else {
            throw JSONSyntaxError(offset: start, reason: "number \(text) is out of range")
        }
        return value
    }

    private mutating func skipDigits() {
        while let byte = peek(), isDigit(byte) { position += 1 }
    }

    private func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    // MARK: - Strings

    private mutating func string() throws(JSONSyntaxError) -> String {
        position += 1  // opening quote
        var scalars = String.UnicodeScalarView()
        var runStart = position
        while true {
            guard let byte = peek() else { throw error("unterminated string") }
            switch byte {
            case UInt8(ascii: "\""):
                scalars.append(contentsOf: plainRun(runStart..<position))
                position += 1
                return String(scalars)
            case UInt8(ascii: "\\"):
                scalars.append(contentsOf: plainRun(runStart..<position))
                scalars.append(try escape())
                runStart = position
            case 0..<0x20:
                throw error("control character in a string (escape it)")
            default:
                position += 1
            }
        }
    }

    /// Bytes between escapes: valid UTF-8 already, because the input came from a `String`.
    private func plainRun(_ range: Range<Int>) -> String.UnicodeScalarView {
        String(decoding: bytes[range], as: UTF8.self).unicodeScalars
    }

    private mutating func escape() throws(JSONSyntaxError) -> Unicode.Scalar {
        position += 1  // backslash
        guard let byte = peek() else { throw error("unterminated escape") }
        position += 1
        switch byte {
        case UInt8(ascii: "\""): return "\""
        case UInt8(ascii: "\\"): return "\\"
        case UInt8(ascii: "/"): return "/"
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"): return try unicodeEscape()
        default:
            position -= 1
            throw error("unknown escape")
        }
    }

    /// `\uXXXX`, joining a UTF-16 surrogate pair written as two escapes.
    private mutating func unicodeEscape() throws(JSONSyntaxError) -> Unicode.Scalar {
        let start = position - 2
        let high = try hex4()
        if (0xD800...0xDBFF).contains(high) {
            guard peek() == UInt8(ascii: "\\"), peek(at: position + 1) == UInt8(ascii: "u") else {
                throw JSONSyntaxError(offset: start, reason: "unpaired UTF-16 surrogate")
            }
            position += 2
            let low = try hex4()
            guard (0xDC00...0xDFFF).contains(low) else {
                throw JSONSyntaxError(offset: start, reason: "unpaired UTF-16 surrogate")
            }
            return Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))!
        }
        guard let scalar = Unicode.Scalar(high) else {
            throw JSONSyntaxError(offset: start, reason: "unpaired UTF-16 surrogate")
        }
        return scalar
    }

    private mutating func hex4() throws(JSONSyntaxError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = peek() else { throw error("expected four hex digits after \\u") }
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw error("expected four hex digits after \\u")
            }
            value = value << 4 | digit
            position += 1
        }
        return value
    }

    // MARK: - Small pieces

    private mutating func literal(_ word: String) throws(JSONSyntaxError) {
        let expected = Array(word.utf8)
        guard bytes.count - position >= expected.count,
              bytes[position..<position + expected.count].elementsEqual(expected)
        else { throw error("unexpected word, expected \(word)") }
        position += expected.count
    }

    private mutating func expect(_ character: Unicode.Scalar, _ reason: String) throws(JSONSyntaxError) {
        guard peek() == UInt8(ascii: character) else { throw error(reason) }
        position += 1
    }

    private mutating func skipWhitespace() {
        while let byte = peek(),
              byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\n")
              || byte == UInt8(ascii: "\r") {
            position += 1
        }
    }

    private func peek() -> UInt8? { peek(at: position) }
    private func peek(at index: Int) -> UInt8? { index < bytes.count ? bytes[index] : nil }

    private func error(_ reason: String) -> JSONSyntaxError { JSONSyntaxError(offset: position, reason: reason) }
}
