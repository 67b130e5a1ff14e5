import Agent
import AgentBase
import ENCore
/// `config list|get|set`: the configuration table, validated and persisted.
extension AgentConsole {
    static func registerConfigCommands(in table: CommandTable, control: AgentControl) {
        let keyNames = ArgumentCompletion.words(ConfigurationKey.all.map { $0.name })
        table.register(ConsoleCommand("config list", summary: "every configuration key, its value and where it comes from") { request in
            let c = control.configuration
            if request.json {
                var o = JSONObject()
                o.raw("config", JSON.array(c.keys.map { configJSON($0, c) }))
                return .json(o.text)
            }
            return .text(c.keys.map { key in
                "\(key.name) = \(shown(key, c))" + sourceNote(key, c)
            }.joined(separator: "\n"))
        })
        table.register(ConsoleCommand("config get", summary: "one configuration value", usage: "config get KEY",
                                      arguments: 1...1, completion: keyNames) { request in
            guard let key = ConfigurationKey.named(request.arguments[0]) else {
                return .error("unknown key '\(request.arguments[0].printableExcerpt())' (config list shows them)")
            }
            return request.json ? .json(configJSON(key, control.configuration)) : .text(shown(key, control.configuration))
        })
        let privileged = ConfigurationKey.privileged.map { "\($0.name) (\($0.privilege ?? ""))" }
        table.register(ConsoleCommand(
            "config set", summary: "change a configuration value (validated, saved)", usage: "config set KEY VALUE [--yes]",
            help: "Privileged keys need consent and are logged when changed: \(privileged.joined(separator: ", ")).",
            arguments: 2...2, completion: keyNames, consent: .forFirstArgument(Set(ConfigurationKey.privileged.map { $0.name }))
        ) { request in
            let origin = switch request.channel {
            case .terminal: "set on the console, confirmed"
            case .pipe: request.yes ? "set on the piped console with --yes" : "set on the piped console"
            case .socket: request.yes ? "set through enbeacon ctl with --yes" : "set through enbeacon ctl"
            }
            do throws(ConfigurationError) {
                try control.setConfiguration(request.arguments[0], to: request.arguments[1], origin: origin)
            } catch {
                return .error("\(error)")
            }
            guard let key = ConfigurationKey.named(request.arguments[0]) else { return .error("unknown key") }
            return request.json ? .json(configJSON(key, control.configuration))
                : .text("\(key.name) = \(shown(key, control.configuration))")
        })
    }

    /// Where a value not from the file or the table comes from, as `config list` notes it: a key server's limit
    /// it does not give itself names the `sync.*` key in force for it.
    static func sourceNote(_ key: ConfigurationKey, _ c: Configuration) -> String {
        switch c.source(of: key) {
        case .override: "   (--set, this run only)"
        case .board: "   (the board profile's)"
        case .fallback: "   (\(key.fallback ?? ""))"
        case .default, .file: ""
        }
    }

    /// A value as the console shows it: a secret (`share.api_key`) only as set or not.
    static func shown(_ key: ConfigurationKey, _ c: Configuration) -> String {
        key.isSecret && !c[key].isEmpty ? redactedValue : c[key]
    }

    static let redactedValue = "(set, redacted)"

    /// `value` is the value in force, except a secret's: `"(set, redacted)"` with `"redacted": true`. A key with
    /// a `fallback` (a key server's own limit) has that key's value while it is empty (`"source": "fallback"`).
    static func configJSON(_ key: ConfigurationKey, _ c: Configuration) -> String {
        var o = JSONObject()
        o.string("key", key.name)
        o.string("value", shown(key, c))
        if key.isSecret { o.bool("redacted", !c[key].isEmpty) }
        o.string("source", c.source(of: key).rawValue)
        if let fallback = key.fallback { o.string("fallback", fallback) }
        o.string("default", key.defaultValue)
        o.string("range", key.range)
        return o.text
    }
}
