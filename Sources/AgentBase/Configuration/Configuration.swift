import ENCore

/// The agent's configuration: the table's defaults, under the board profile's values (for the few keys a board
/// may give, `radio.rssi_correction`), under the config file's values, under `--set` overrides.
///
/// A value type whose every stored value has passed its key's check, so a reader never meets a bad value.
/// File values and overrides are kept apart because only the former are written back: a `--set` for one
/// run must not become permanent when the console changes another key.
package struct Configuration: Equatable, Sendable {
    /// Where the value in force comes from (`config list` shows it).
    package enum Source: String, Sendable {
        case `default`, board, file, override
        /// Empty, so the key's fallback is in force (a key server without its own limit: the `sync.*` value).
        case fallback
    }

    /// Values the config file gives (or `config set` changed), by key name.
    private(set) var fileValues: [String: String] = [:]
    /// `--set` values for this run only.
    package private(set) var overrides: [String: String] = [:]
    /// The board profile's values: what a board model declares, which this unit's config file may refine
    /// (a correction measured on this badge). Never written back to the file.
    private(set) var boardValues: [String: String] = [:]

    package init() {}

    /// A config file's text (the syntax is `KeyValueLines`'). Unknown keys, bad values and a key given twice
    /// are errors naming the line.
    package init(parsing text: String) throws(ConfigurationError) {
        var lines: [String: Int] = [:]
        let entries = try KeyValueLines.parse(text)
        for (name, value, line) in entries {
            let location = "line \(line)"
            if let first = lines[name] {
                throw ConfigurationError("\(name) is given twice (lines \(first) and \(line))", at: location)
            }
            lines[name] = line
            fileValues[name] = try Self.checked(name, value, at: location)
        }
    }

    /// The value in force for `key`: its own, or while that is empty, its fallback's.
    package subscript(key: ConfigurationKey) -> String {
        let own = ownValue(key)
        guard own.isEmpty, let fallback = key.fallback.flatMap(ConfigurationKey.named) else { return own }
        return self[fallback]
    }

    /// The value `key` itself has, from the first layer that gives one.
    private func ownValue(_ key: ConfigurationKey) -> String {
        overrides[key.name] ?? fileValues[key.name] ?? boardValues[key.name] ?? key.defaultValue
    }

    /// The value in force for the key called `name`, or nil for an unknown name (`config get`).
    package func value(of name: String) -> String? {
        ConfigurationKey.named(name).map { self[$0] }
    }

    package func source(of key: ConfigurationKey) -> Source {
        if key.fallback != nil && ownValue(key).isEmpty { return .fallback }
        return overrides[key.name] != nil ? .override : fileValues[key.name] != nil ? .file
            : boardValues[key.name] != nil ? .board : .default
    }

    /// A board profile's value, under the file's.
    package mutating func setBoardValue(_ name: String, to value: String) throws(ConfigurationError) {
        boardValues[name] = try Self.checked(name, value, at: "the board profile")
    }

    /// `other`'s board values, as a configuration read again from the file keeps them.
    package mutating func keepBoardValues(of other: Configuration) {
        boardValues = other.boardValues
    }

    /// A file value, as `config set` makes it. Nothing changes when the key or value is refused.
    package mutating func set(_ name: String, to value: String) throws(ConfigurationError) {
        fileValues[name] = try Self.checked(name, value.trimmingSpaces, at: nil)
    }

    /// A `--set KEY=VALUE` for this run.
    package mutating func override(_ assignment: String) throws(ConfigurationError) {
        guard let equals = assignment.firstIndex(of: "=") else {
            throw ConfigurationError("expected KEY=VALUE, got '\(assignment)'", at: "--set")
        }
        let name = assignment[..<equals].trimmingSpaces
        let value = assignment[assignment.index(after: equals)...].trimmingSpaces
        overrides[name] = try Self.checked(name, value, at: "--set")
    }

    /// Drops a `--set` override, so the file's value (or the default) is in force again.
    package mutating func removeOverride(_ name: String) {
        overrides[name] = nil
    }

    // MARK: Typed reading

    /// The integer value of an integer key (checked on the way in, so it always parses).
    package func integer(_ key: ConfigurationKey) -> Int {
        Int(self[key]) ?? Int(key.defaultValue) ?? 0
    }

    /// The value, or nil when it is empty (not configured).
    package func optional(_ key: ConfigurationKey) -> String? {
        let value = self[key]
        return value.isEmpty ? nil : value
    }

    private static func checked(_ name: String, _ value: String, at location: String?) throws(ConfigurationError) -> String {
        guard let key = ConfigurationKey.named(name) else { throw .unknownKey(name, at: location) }
        guard key.accepts(value) else { throw .badValue(value, for: key, at: location) }
        return value
    }
}
