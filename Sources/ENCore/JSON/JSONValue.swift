/// A parsed JSON document (RFC 8259), for reading small configuration files without Foundation.
///
/// Objects are dictionaries: member order never matters to a configuration, and duplicate names are rejected at
/// parse time rather than silently resolved. Numbers are `Double`, exact for every integer a configuration holds.
public enum JSONValue: Hashable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// Parses one complete document; anything but whitespace after it is an error.
    public static func parse(_ text: String) throws(JSONSyntaxError) -> JSONValue {
        var parser = JSONParser(Array(text.utf8))
        return try parser.document()
    }

    /// Parses UTF-8 bytes (a file's contents); invalid UTF-8 is an error.
    public static func parse(utf8 bytes: [UInt8]) throws(JSONSyntaxError) -> JSONValue {
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw JSONSyntaxError(offset: 0, reason: "the document is not valid UTF-8")
        }
        return try parse(text)
    }

    /// What the value is, for error messages: "a number", "an array", ….
    public var kindDescription: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}
