/// The named key servers a configuration has, and their keys beside the table's.
extension Configuration {
    /// The names of the servers any `keyserver.<name>.*` value (file or `--set`) mentions, sorted; each is
    /// a server whether or not its values are complete (its settings then say what is missing).
    package var keyServerNames: [String] {
        let names = (Array(fileValues.keys) + Array(overrides.keys)).compactMap { ConfigurationKey.namedKeyServerSetting($0)?.server }
        return Set(names).sorted()
    }

    /// Every key `config list` shows: the table's, then each named server's settings.
    package var keys: [ConfigurationKey] {
        ConfigurationKey.all + keyServerNames.flatMap { name in ConfigurationKey.keyServerSettings.map { $0.forKeyServer(name) } }
    }
}
