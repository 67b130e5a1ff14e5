/// Keys whose change needs explicit consent on the console (`--yes` through `enbeacon ctl` or a pipe, a
/// typed `yes` on a terminal) and is logged as such: a wrong value would run a program for ever after or
/// change which downloads are trusted. The others change tuning; they are validated and logged too.
extension ConfigurationKey {
    /// The privileged keys, in display order.
    public static let privileged: [ConfigurationKey] = [notifyCommand, keyServerPublicKey, keyServerCAFile]

    /// Why changing this key needs consent; nil for an ordinary key.
    public var privilege: String? {
        switch name {
        case Self.notifyCommand.name: "it runs a program for every exposure"
        case Self.keyServerPublicKey.name: "it decides which exports are trusted"
        case Self.keyServerCAFile.name: "it decides which HTTPS servers are trusted"
        default: nil
        }
    }

    /// Whether the value may be logged: a command line can hold a token (a messaging service's, say).
    public var valueIsLoggable: Bool { kind != .command }
}
