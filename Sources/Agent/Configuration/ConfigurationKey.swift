/// One known configuration key: a row of the table `config list` shows and `config set` checks against.
public struct ConfigurationKey: Hashable, Sendable {
    public let name: String
    public let kind: ConfigurationKind
    /// The value in force when neither the file nor `--set` gives one.
    public let defaultValue: String
    /// One line for `config list` and `help config`.
    public let help: String

    public init(_ name: String, _ kind: ConfigurationKind, default defaultValue: String, _ help: String) {
        self.name = name
        self.kind = kind
        self.defaultValue = defaultValue
        self.help = help
    }

    /// The accepted values (see `ConfigurationKind.range`).
    public var range: String { kind.range }
}
