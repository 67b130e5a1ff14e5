/// Further key servers: `keyserver.<name>.<setting>` with the settings the unnamed `keyserver.*` keys have
/// (which stay the default server, so configurations written before names existed mean what they meant).
///
/// The names are not in the table: any valid name makes a server, so its keys are made when a file or a
/// `config set` names them, with the kind and default of the unnamed setting. A misspelt setting or a bad
/// name is refused with a message that says which, like any unknown key.
extension ConfigurationKey {
    static let keyServerPrefix = "keyserver."

    /// The settings one key server has, as the unnamed keys spell them: where it is and whom it trusts, then
    /// its own limits.
    package static let keyServerSettings: [ConfigurationKey] = [
        keyServerStyle, keyServerIndexURL, keyServerBaseURL, keyServerCountry, keyServerCAFile, keyServerPublicKey,
        keyServerKeyID, keyServerKeyVersion,
    ] + keyServerLimits

    /// This key server setting for the server called `server`; itself for the default server (nil).
    package func forKeyServer(_ server: String?) -> ConfigurationKey {
        guard let server, name.hasPrefix(Self.keyServerPrefix) else { return self }
        let setting = name.dropFirst(Self.keyServerPrefix.count)
        return ConfigurationKey(Self.keyServerPrefix + server + "." + setting, kind, default: defaultValue,
                                "key server \(server): " + help, fallback: fallback)
    }

    /// The unnamed setting a named key's name spells (`keyserver.eur.style` → `keyserver.style`), with the
    /// server's name; nil for any other name, and for a bad name or setting (`keyServerKeyProblem` says which).
    static func namedKeyServerSetting(_ name: String) -> (server: String, setting: ConfigurationKey)? {
        guard case .success(let parts)? = splitNamedKeyServerKey(name) else { return nil }
        return parts
    }

    /// Why `name`, which looks like a named key server's key, is not one; nil when it is, or does not look
    /// like one.
    static func keyServerKeyProblem(_ name: String) -> String? {
        guard case .failure(let problem)? = splitNamedKeyServerKey(name) else { return nil }
        return problem.message
    }

    private struct Problem: Error { let message: String }

    private static func splitNamedKeyServerKey(_ name: String) -> Result<(server: String, setting: ConfigurationKey), Problem>? {
        guard name.hasPrefix(keyServerPrefix) else { return nil }
        let rest = name.dropFirst(keyServerPrefix.count)
        guard let dot = rest.lastIndex(of: ".") else { return nil }
        let server = String(rest[..<dot])
        let settingName = keyServerPrefix + rest[rest.index(after: dot)...]
        guard KeyServerName.isValid(server) else {
            return .failure(Problem(message: "'\(name)': a key server's name (here '\(server)') is "
                                    + KeyServerName.rule))
        }
        guard let setting = keyServerSettings.first(where: { $0.name == settingName }) else {
            let known = keyServerSettings.map { $0.name.dropFirst(keyServerPrefix.count) }.joined(separator: ", ")
            return .failure(Problem(message: "unknown key '\(name)': key server \(server) has no setting "
                                    + "'\(settingName.dropFirst(keyServerPrefix.count))' (known: \(known))"))
        }
        return .success((server, setting))
    }
}

/// What a further key server may be called: it names its keys, its cursor file and its status line.
enum KeyServerName {
    static let rule = "1 to 32 lowercase letters, digits and '-', starting with a letter"

    package static func isValid(_ name: String) -> Bool {
        guard (1...32).contains(name.utf8.count), let first = name.utf8.first, (0x61...0x7A).contains(first) else {
            return false
        }
        return name.utf8.allSatisfy { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == UInt8(ascii: "-") }
    }
}
