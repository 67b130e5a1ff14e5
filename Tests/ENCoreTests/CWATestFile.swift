import ENCore
import SystemIO

/// The Corona-Warn-App's published risk-calculation test file (Resources/CoronaWarnApp, with its licence): its
/// default configuration and 29 cases, read as written.
enum CWATestFile {
    static let path: String = {
        var directory = #filePath
        while let last = directory.last, last != "/" { directory.removeLast() }
        return directory + "Resources/CoronaWarnApp/exposure-windows-risk-calculation.json"
    }()

    static let text: String = try! TextFile.contents(of: path)
    static let document: JSONValue = try! JSONValue.parse(text)

    static var cases: [JSONValue] {
        guard case .array(let cases) = member(document, "testCases") else { return [] }
        return cases
    }

    static func member(_ value: JSONValue, _ name: String) -> JSONValue? {
        guard case .object(let members) = value else { return nil }
        return members[name]
    }

    /// An integer member, nil for JSON null.
    static func integer(_ value: JSONValue, _ name: String) -> Int? {
        guard case .number(let number) = member(value, name) else { return nil }
        return Int(exactly: number)
    }

    static func description(_ value: JSONValue) -> String {
        guard case .string(let text) = member(value, "description") else { return "?" }
        return text
    }
}
