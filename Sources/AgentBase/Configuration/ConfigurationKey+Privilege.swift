/// Keys whose change needs explicit consent on the console (`--yes` through `enbeacon ctl` or a pipe, a
/// typed `yes` on a terminal) and is logged as such: a wrong value would run a program for ever after,
/// change which downloads are trusted, or send a wearer's keys somewhere else. The others change tuning;
/// they are validated and logged too.
extension ConfigurationKey {
    /// The privileged keys, in display order.
    package static let privileged: [ConfigurationKey] = [
        notifyCommand, keyServerPublicKey, keyServerCAFile, shareVerificationURL, shareAPIKey, sharePublishURL,
        metricsListen,
    ]

    /// Why changing this key needs consent; nil for an ordinary key.
    package var privilege: String? {
        // A named key server's public key or CA file decides trust as the default server's does.
        if let named = Self.namedKeyServerSetting(name) { return named.setting.privilege }
        return switch name {
        case Self.notifyCommand.name: "it runs a program for every exposure"
        case Self.keyServerPublicKey.name: "it decides which exports are trusted"
        case Self.keyServerCAFile.name: "it decides which HTTPS servers are trusted"
        case Self.shareVerificationURL.name: "it decides where verification codes are sent"
        case Self.shareAPIKey.name: "it is the health authority's credential"
        case Self.sharePublishURL.name: "it decides where a wearer's keys are sent"
        case Self.metricsListen.name: "it decides who can read whether the badge is on air and how many exposures it has"
        default: nil
        }
    }

    /// Whether the value may be logged: a command line can hold a token (a messaging service's, say), and a
    /// secret is never logged.
    package var valueIsLoggable: Bool { kind != .command && kind != .secret }

    /// Whether `config list` and `config get` hide the value: a credential is shown only as set or not.
    package var isSecret: Bool { kind == .secret }
}
