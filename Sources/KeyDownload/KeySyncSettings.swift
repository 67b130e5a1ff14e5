import AgentBase
import ENCore
import SystemIO

/// Everything a key sync needs, resolved from the configuration: the server, the verification keyring (from
/// the PEM file), the risk configurations (from the JSON file), limits and timing.
package struct KeySyncSettings: Sendable {
    /// The server's name (`keyserver.<name>.*`); nil for the default server (`keyserver.*`).
    package var name: String?
    /// Nil: no key server configured, no sync.
    package var server: KeyServer?
    /// Exports must verify with one of these keys, or their keys are never used.
    package var keyring = VerificationKeyring()
    /// PEM file of trusted CAs instead of the system store.
    var caFile: String?
    package var interval: Duration = .seconds(4 * 3600)
    /// Up to this much is added to each interval at random, so that many badges do not hit the server at once.
    package var jitter: Duration = .seconds(300)
    /// The first sync after `start` waits at least this long (the radio starts first), at most `interval`.
    var startDelay: Duration = .seconds(30)
    package var limits = KeySyncLimits()
    package var retry = RetryPolicy()
    var riskV1 = RiskDefaults.v1
    package var riskV2 = RiskDefaults.v2
    /// Diagnosis keys matched per loop slice (`match.batch_keys`).
    var keysPerSlice = 200
    /// This badge's RSSI correction, dB (`radio.rssi_correction`), applied to the stored RSSIs as keys are matched.
    package var rssiCorrection = 0

    /// Not configured: `start` logs that there is no key server and nothing is downloaded.
    package init() {}

    /// The default server's and each named server's, in that order (`KeyServers` runs one sync for each). A
    /// named server without a URL yet is not configured, as the default is: `config set` gives one key at a
    /// time, and its public key must be accepted before its URL is.
    package static func all(configuration c: Configuration) throws(ConfigurationError) -> [KeySyncSettings] {
        var all = [try KeySyncSettings(configuration: c)]
        for name in c.keyServerNames { all.append(try KeySyncSettings(configuration: c, server: name)) }
        return all
    }

    /// Resolves the `keyserver.*` keys (of the server called `name`, `keyserver.<name>.*`, if given) with the
    /// server's own limits or the `sync.*` ones, and the `sync.interval_hours`, `risk.config` and `match.*` keys
    /// every server shares, reading the public key and the risk
    /// configuration files. Every error names the key and what is wrong with its value.
    package init(configuration c: Configuration, server name: String? = nil) throws(ConfigurationError) {
        self.name = name
        let key = { (setting: ConfigurationKey) in setting.forKeyServer(name) }
        interval = .seconds(c.integer(.syncIntervalHours) * 3600)
        limits = KeySyncLimits(configuration: c, server: name)
        keysPerSlice = c.integer(.matchBatchKeys)
        rssiCorrection = c.integer(.radioRSSICorrection)
        caFile = c.optional(key(.keyServerCAFile))
        // libcurl opens it later, on the loop: a FIFO or a device named here must be refused now.
        if let caFile {
            do { try TextFile.check(caFile, limit: 4 << 20) } catch {
                throw ConfigurationError("\(key(.keyServerCAFile).name): \(error)")
            }
        }
        if let path = c.optional(.riskConfig) { (riskV1, riskV2) = try Self.riskConfigurations(path) }
        server = try Self.server(c, key)
        guard let server else { return }

        guard let pemPath = c.optional(key(.keyServerPublicKey)) else {
            throw ConfigurationError("\(key(.keyServerPublicKey).name) is required with a key server: "
                                     + "unverified exports are never used")
        }
        let pem: String
        do { pem = try TextFile.contents(of: pemPath, limit: 64 << 10) } catch {
            throw ConfigurationError("\(key(.keyServerPublicKey).name): \(error)")
        }
        var keyID = c[key(.keyServerKeyID)]
        if keyID.isEmpty, case .cwa = server { keyID = "262" }
        guard !keyID.isEmpty else {
            throw ConfigurationError("\(key(.keyServerKeyID).name) is required: the verification_key_id "
                                     + "the server's exports name its key by")
        }
        do {
            try keyring.add(pem: pem, for: VerificationKeyID(id: keyID, version: c[key(.keyServerKeyVersion)]))
        } catch {
            throw ConfigurationError("\(key(.keyServerPublicKey).name): \(pemPath): \(error)")
        }
    }

    private static func server(
        _ c: Configuration, _ key: (ConfigurationKey) -> ConfigurationKey
    ) throws(ConfigurationError) -> KeyServer? {
        let base = c.optional(key(.keyServerBaseURL))
        switch c[key(.keyServerStyle)] {
        case "cwa":
            guard let base else { return nil }
            return .cwa(baseURL: base, country: c[key(.keyServerCountry)])
        case "folder":
            guard let folder = base ?? c.optional(key(.keyServerIndexURL)).map(KeyServer.folder(of:)) else { return nil }
            guard folder.lowercased().hasPrefix("file://") else {
                throw ConfigurationError("\(key(.keyServerBaseURL).name): the folder style needs a "
                                         + "file:// URL, got '\(folder)'")
            }
            let slashed = folder.hasSuffix("/") ? folder : folder + "/"
            return .indexed(indexURL: slashed + "index.txt", baseURL: slashed)
        default:
            guard let index = c.optional(key(.keyServerIndexURL)) else { return nil }
            return .indexed(indexURL: index, baseURL: base ?? KeyServer.folder(of: index))
        }
    }

    /// v1 from the file; v2 too when the same document has v2's members, else the defaults.
    private static func riskConfigurations(
        _ path: String
    ) throws(ConfigurationError) -> (ExposureConfigurationV1, ExposureConfigurationV2) {
        let key = ConfigurationKey.riskConfig.name
        let text: String
        do { text = try TextFile.contents(of: path, limit: 1 << 20) } catch { throw ConfigurationError("\(key): \(error)") }
        do {
            let v1 = try ExposureConfigurationV1(json: text)
            guard case .object(let members)? = try? JSONValue.parse(text), members["attenuationThresholds"] != nil else {
                return (v1, RiskDefaults.v2)
            }
            return (v1, try ExposureConfigurationV2(json: text))
        } catch {
            throw ConfigurationError("\(key): \(path): \(error)")
        }
    }
}
