/// JSON text written by hand (no Foundation): the `--json` documents of the export and match commands.
///
/// A `JSONObject` collects members as already-encoded values, so objects nest by passing one's `text` to
/// another; long arrays (the keys of a 2-million-key export) are streamed by the caller instead.
struct JSONObject {
    private var members: [String] = []

    /// Adds `"name": value`, where `value` is already JSON.
    mutating func raw(_ name: String, _ value: String) { members.append(JSON.string(name) + ":" + value) }
    mutating func string(_ name: String, _ value: String) { raw(name, JSON.string(value)) }
    mutating func string(_ name: String, _ value: String?) { raw(name, value.map(JSON.string) ?? "null") }
    mutating func integer(_ name: String, _ value: some BinaryInteger) { raw(name, "\(value)") }
    mutating func integer(_ name: String, _ value: Int?) { raw(name, value.map { "\($0)" } ?? "null") }
    mutating func number(_ name: String, _ value: Double) { raw(name, JSON.number(value)) }
    mutating func bool(_ name: String, _ value: Bool) { raw(name, value ? "true" : "false") }

    var text: String { "{" + members.joined(separator: ",") + "}" }
}

enum JSON {
    /// A quoted JSON string: `"` and `\` escaped, control characters as \n, \t … or \u00XX. Everything
    /// else is passed through as UTF-8, which JSON allows.
    static func string(_ value: String) -> String {
        var out = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// Whole numbers without a fraction (900, not 900.0); others in Swift's shortest round-trip form, which
    /// is valid JSON. JSON has no NaN or infinity: those become null.
    static func number(_ value: Double) -> String {
        guard value.isFinite else { return "null" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }

    static func array(_ elements: [String]) -> String { "[" + elements.joined(separator: ",") + "]" }
}
