/// Why a configuration was refused. It names where (a line of the file, `--set`), which key, and what the
/// key accepts, so the one line on stderr or the console is enough to fix it.
package struct ConfigurationError: Error, Equatable, Sendable, CustomStringConvertible {
    /// "line 3", "--set", "FILE": where the offending text came from; nil when the caller says it.
    package var location: String?
    package var message: String

    package init(_ message: String, at location: String? = nil) {
        self.location = location
        self.message = message
    }

    /// An error of the `key = value` line `line` (1-based): of the config file or of a board profile.
    package init(line: Int, _ message: String) { self.init(message, at: "line \(line)") }

    static func unknownKey(_ name: String, at location: String?) -> ConfigurationError {
        if let problem = ConfigurationKey.keyServerKeyProblem(name) { return ConfigurationError(problem, at: location) }
        return ConfigurationError("unknown key '\(name)' (known: \(ConfigurationKey.all.map { $0.name }.joined(separator: ", ")))",
                           at: location)
    }

    /// A credential is not repeated, not even a wrong one: the error may reach the log.
    static func badValue(_ value: String, for key: ConfigurationKey, at location: String?) -> ConfigurationError {
        let got = key.isSecret ? "a value of \(value.count) characters that is not (not shown)" : "'\(value)'"
        return ConfigurationError("\(key.name): expected \(key.range), got \(got)", at: location)
    }

    package var description: String { location.map { "\($0): \(message)" } ?? message }
}
