import AgentBase
import ENCore
import KeyDownload

extension Agent {
    /// Refuses `configuration` for the reasons the agent would refuse it at start: beyond each key's own
    /// range (checked as the file was parsed), every key server's settings must resolve (its public key file
    /// read and parsed, its CA file readable) and the risk model must build from the `risk.*` keys. The
    /// badge image checks a provisioning file with it before anything of the badge changes.
    package static func check(_ configuration: Configuration) throws(ConfigurationError) {
        _ = try KeySyncSettings.all(configuration: configuration)
        _ = try RiskModel(configuration: configuration)
    }
}
