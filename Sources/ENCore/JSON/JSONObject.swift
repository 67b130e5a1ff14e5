/// One JSON object written by hand (no Foundation): the console's `--json` answers, the export and match
/// commands' documents, the exposures file and what `notify.command` reads on stdin.
///
/// Members are collected as already-encoded values, so objects nest by passing one's `text` to another;
/// long arrays (the keys of a 2-million-key export) are streamed by the caller instead. Strings are escaped
/// by `JSONText.quoted`; reading goes through ENCore's strict `JSONValue`.
public struct JSONObject {
    private var members: [String] = []

    public init() {}

    /// Adds `"name": value`, where `value` is already JSON.
    public mutating func raw(_ name: String, _ value: String) { members.append(JSONText.quoted(name) + ":" + value) }
    public mutating func string(_ name: String, _ value: String) { raw(name, JSONText.quoted(value)) }
    public mutating func string(_ name: String, _ value: String?) { raw(name, value.map(JSONText.quoted) ?? "null") }
    public mutating func integer(_ name: String, _ value: some BinaryInteger) { raw(name, "\(value)") }
    public mutating func integer<N: BinaryInteger>(_ name: String, _ value: N?) { raw(name, value.map { "\($0)" } ?? "null") }
    public mutating func number(_ name: String, _ value: Double) { raw(name, JSON.number(value)) }
    public mutating func bool(_ name: String, _ value: Bool) { raw(name, value ? "true" : "false") }

    public var text: String { "{" + members.joined(separator: ",") + "}" }
}

/// Numbers and arrays for the hand-written documents; strings are quoted by `JSONText.quoted`.
public enum JSON {
    /// Whole numbers without a fraction (900, not 900.0); others in Swift's shortest round-trip form, which
    /// is valid JSON. JSON has no NaN or infinity: those become null.
    public static func number(_ value: Double) -> String {
        guard value.isFinite else { return "null" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }

    public static func array(_ elements: [String]) -> String { "[" + elements.joined(separator: ",") + "]" }
}
