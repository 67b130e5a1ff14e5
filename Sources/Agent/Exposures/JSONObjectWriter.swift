/// Builds one JSON object without Foundation: the exposures file and what `notify.command` reads on stdin.
/// Strings are escaped by the console's `JSONText.quoted`; reading goes through ENCore's strict `JSONValue`.
struct JSONObjectWriter {
    private(set) var text = "{"
    private var first = true

    /// Adds `"name":` followed by `value`, which must already be JSON.
    mutating func raw(_ name: String, _ value: String) {
        if !first { text += "," }
        first = false
        text += JSONText.quoted(name) + ":" + value
    }

    mutating func string(_ name: String, _ value: String) { raw(name, JSONText.quoted(value)) }
    mutating func integer(_ name: String, _ value: some BinaryInteger) { raw(name, "\(value)") }
    mutating func number(_ name: String, _ value: Double) { raw(name, Self.number(value)) }
    mutating func bool(_ name: String, _ value: Bool) { raw(name, value ? "true" : "false") }

    /// The finished object.
    var object: String { text + "}" }

    /// Whole numbers without a fraction (900, not 900.0); others in Swift's shortest round-trip form, which is
    /// valid JSON. Non-finite values, which JSON cannot carry, become 0.
    static func number(_ value: Double) -> String {
        guard value.isFinite else { return "0" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }
}
