/// One known configuration key: a row of the table `config list` shows and `config set` checks against.
package struct ConfigurationKey: Hashable, Sendable {
    package let name: String
    package let kind: ConfigurationKind
    /// The value in force when neither the file nor `--set` gives one.
    package let defaultValue: String
    /// One line for `config list` and `help config`.
    package let help: String
    /// The key whose value is in force while this one is empty (a key server's own limit: its `sync.*` key).
    /// Empty is then accepted whatever the kind, and is the default.
    package let fallback: String?

    package init(_ name: String, _ kind: ConfigurationKind, default defaultValue: String, _ help: String,
                fallback: String? = nil) {
        self.name = name
        self.kind = kind
        self.defaultValue = defaultValue
        self.help = help
        self.fallback = fallback
    }

    /// The accepted values (see `ConfigurationKind.range`).
    package var range: String { kind.range }

    /// Whether `value` (already trimmed) is acceptable: one of the kind's, or empty for a key with a fallback.
    func accepts(_ value: String) -> Bool {
        kind.accepts(value) || (fallback != nil && value.isEmpty)
    }
}
