/// Typed, range-checked access to the members of one JSON object in a risk configuration.
///
/// Every failure names the member's full path. Members nobody asks for are ignored, so a configuration written
/// for a newer or richer format still loads.
struct ConfigurationObject {
    private let members: [String: JSONValue]
    /// The object's own path, "" for the document.
    private let path: String

    /// The document's top-level object, from text.
    init(document text: String) throws(RiskConfigurationError) {
        let value: JSONValue
        do {
            value = try JSONValue.parse(text)
        } catch {
            throw RiskConfigurationError(field: nil, reason: error.description)
        }
        guard case .object(let members) = value else {
            throw RiskConfigurationError(field: nil, reason: "expected a JSON object, found \(value.kindDescription)")
        }
        self.init(members: members, path: "")
    }

    /// An object already parsed, at `path` in its document ("" for the document itself).
    init(_ value: JSONValue, path: String) throws(RiskConfigurationError) {
        guard case .object(let members) = value else {
            throw RiskConfigurationError(field: path.isEmpty ? nil : path,
                                         reason: "expected an object, found \(value.kindDescription)")
        }
        self.init(members: members, path: path)
    }

    private init(members: [String: JSONValue], path: String) {
        self.members = members
        self.path = path
    }

    /// Member names present, for maps whose keys are data (days since onset).
    var names: [String] { members.keys.sorted() }

    func contains(_ name: String) -> Bool { members[name] != nil }

    func fieldPath(_ name: String) -> String { path.isEmpty ? name : "\(path).\(name)" }

    func value(_ name: String) throws(RiskConfigurationError) -> JSONValue {
        guard let value = members[name] else { throw failure(name, "missing") }
        return value
    }

    func object(_ name: String) throws(RiskConfigurationError) -> ConfigurationObject {
        let value = try value(name)
        guard case .object(let members) = value else {
            throw failure(name, "expected an object, found \(value.kindDescription)")
        }
        return ConfigurationObject(members: members, path: fieldPath(name))
    }

    /// Each element of an array of objects, its path `name[i]`.
    func objects(_ name: String) throws(RiskConfigurationError) -> [ConfigurationObject] {
        let value = try value(name)
        guard case .array(let elements) = value else {
            throw failure(name, "expected an array of objects, found \(value.kindDescription)")
        }
        var result: [ConfigurationObject] = []
        for (index, element) in elements.enumerated() {
            result.append(try ConfigurationObject(element, path: "\(fieldPath(name))[\(index)]"))
        }
        return result
    }

    /// A boolean that may be left out (protocol buffers' JSON leaves out `false`).
    func bool(_ name: String, absent: Bool) throws(RiskConfigurationError) -> Bool {
        guard contains(name) else { return absent }
        let value = try value(name)
        guard case .bool(let flag) = value else { throw failure(name, "expected true or false, found \(value.kindDescription)") }
        return flag
    }

    /// Refuses members outside `known`: for small objects where a misspelt optional member (`maxExlusive`) would
    /// otherwise silently mean its default.
    func requireOnly(_ known: [String]) throws(RiskConfigurationError) {
        for name in names where !known.contains(name) {
            throw failure(name, "unknown member (expected \(known.joined(separator: ", ")))")
        }
    }

    func string(_ name: String) throws(RiskConfigurationError) -> String {
        let value = try value(name)
        guard case .string(let text) = value else {
            throw failure(name, "expected a string, found \(value.kindDescription)")
        }
        return text
    }

    func integer(_ name: String, in range: ClosedRange<Int>) throws(RiskConfigurationError) -> Int {
        try Self.integer(try value(name), in: range, field: fieldPath(name))
    }

    /// A number such as a weight; integers are numbers too.
    func number(_ name: String, in range: ClosedRange<Double>) throws(RiskConfigurationError) -> Double {
        let value = try value(name)
        guard case .number(let number) = value else {
            throw failure(name, "expected a number, found \(value.kindDescription)")
        }
        guard range.contains(number) else {
            let bounds = range.upperBound == .greatestFiniteMagnitude
                ? "below \(Self.text(range.lowerBound))"
                : "outside \(Self.text(range.lowerBound))…\(Self.text(range.upperBound))"
            throw failure(name, "\(Self.text(number)) is \(bounds)")
        }
        return number
    }

    /// An array of exactly `count` integers, each in `range`.
    func integers(_ name: String, count: Int, in range: ClosedRange<Int>) throws(RiskConfigurationError) -> [Int] {
        let value = try value(name)
        guard case .array(let elements) = value else {
            throw failure(name, "expected an array of \(count) integers, found \(value.kindDescription)")
        }
        guard elements.count == count else { throw failure(name, "expected \(count) values, found \(elements.count)") }
        var result: [Int] = []
        for (index, element) in elements.enumerated() {
            result.append(try Self.integer(element, in: range, field: "\(fieldPath(name))[\(index)]"))
        }
        return result
    }

    private func failure(_ name: String, _ reason: String) -> RiskConfigurationError {
        RiskConfigurationError(field: fieldPath(name), reason: reason)
    }

    private static func integer(_ value: JSONValue, in range: ClosedRange<Int>,
                                field: String) throws(RiskConfigurationError) -> Int {
        guard case .number(let number) = value else {
            throw RiskConfigurationError(field: field, reason: "expected an integer, found \(value.kindDescription)")
        }
        // Exact integers only: 2.5 and 1e300 are refused rather than rounded. 3.0 is the integer 3.
        guard number.rounded() == number, abs(number) <= 1e15 else {
            throw RiskConfigurationError(field: field, reason: "expected an integer, found \(text(number))")
        }
        // Int(exactly:): on a 32-bit board Int ends at 2^31, below 1e15; such a number is outside every range.
        guard let integer = Int(exactly: number), range.contains(integer) else {
            throw RiskConfigurationError(field: field,
                                         reason: "\(text(number)) is outside \(range.lowerBound)…\(range.upperBound)")
        }
        return integer
    }

    /// `3` rather than `3.0`, `2.5` as is.
    static func text(_ number: Double) -> String {
        number.rounded() == number && abs(number) < 1e15 ? String(Int64(number)) : String(number)
    }
}
