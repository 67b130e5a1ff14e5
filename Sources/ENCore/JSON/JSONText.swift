/// Writing JSON strings without Foundation: the console builds its few documents by hand.
public enum JSONText {
    /// `text` as a JSON string literal, quotes included (RFC 8259 escaping).
    public static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            case let s where s.value < 0x20 || s.value == 0x7F:
                let hex = String(s.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// `{"error":"…"}`: how an error answers a `--json` request.
    public static func error(_ message: String) -> String {
        "{\"error\":\(quoted(message))}"
    }
}
