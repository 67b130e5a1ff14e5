import ENCore

/// Reading members of a parsed document, where a missing or mistyped member is just a failed check.
extension JSONValue {
    subscript(_ name: String) -> JSONValue? {
        if case .object(let members) = self { members[name] } else { nil }
    }

    var string: String? { if case .string(let value) = self { value } else { nil } }
    var array: [JSONValue]? { if case .array(let value) = self { value } else { nil } }

    /// A whole number that fits 64 bits: interval numbers and timestamps, whatever the width of `Int`.
    var int64: Int64? { if case .number(let value) = self { Int64(exactly: value) } else { nil } }
}
