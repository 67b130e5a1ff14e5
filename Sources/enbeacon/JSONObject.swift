import Agent
/// JSON text written by hand (no Foundation): the `--json` documents of the export and match commands.
///
/// A `JSONObject` collects members as already-encoded values, so objects nest by passing one's `text` to
/// another; long arrays (the keys of a 2-million-key export) are streamed by the caller instead.
struct JSONObject {
    private var members: [String] = []

    /// Adds `"name": value`, where `value` is already JSON.
    mutating func raw(_ name: String, _ value: String) { members.append(JSONText.quoted(name) + ":" + value) }
    mutating func string(_ name: String, _ value: String) { raw(name, JSONText.quoted(value)) }
    mutating func string(_ name: String, _ value: String?) { raw(name, value.map(JSONText.quoted) ?? "null") }
    mutating func integer(_ name: String, _ value: some BinaryInteger) { raw(name, "\(value)") }
    mutating func integer(_ name: String, _ value: Int?) { raw(name, value.map { "\($0)" } ?? "null") }
    mutating func number(_ name: String, _ value: Double) { raw(name, JSON.number(value)) }
    mutating func bool(_ name: String, _ value: Bool) { raw(name, value ? "true" : "false") }

    var text: String { "{" + members.joined(separator: ",") + "}" }
}


/// Numbers and arrays for the hand-written documents; strings are quoted by `JSONText.quoted`.
enum JSON {
    /// Whole numbers without a fraction (900, not 900.0); others in Swift's shortest round-trip form, which
    /// is valid JSON. JSON has no NaN or infinity: those become null.
    static func number(_ value: Double) -> String {
        guard value.isFinite else { return "null" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }

    static func array(_ elements: [String]) -> String { "[" + elements.joined(separator: ",") + "]" }
}
