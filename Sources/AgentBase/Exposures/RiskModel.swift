import ENCore
import SystemIO

/// Which scorer decides that exposures are to be notified (`risk.model`).
package enum RiskModel: Hashable, Sendable {
    /// Google's: each exposure's v1 risk score against `risk.threshold` (SPEC §5).
    case google(threshold: Int)
    /// The Corona-Warn-App's risk calculation over every recorded exposure window, with the app's own
    /// configuration (`risk.cwa_config`): the exposures with a window on a day of high risk are notified.
    case cwa(CWARiskConfiguration)

    /// `risk.model`'s word.
    package var name: String {
        switch self {
        case .google: "google"
        case .cwa: "cwa"
        }
    }

    /// Resolves `risk.model`, `risk.threshold` and `risk.cwa_config` (reading the file). A separate key
    /// rather than `risk.config`: that file is an ENExposureConfiguration (v1 and v2 weights, still used for
    /// the exposures' scores and windows whichever model decides), and the app's risk-calculation
    /// configuration is another document; one file could not be both.
    package init(configuration c: Configuration) throws(ConfigurationError) {
        guard c[.riskModel] == "cwa" else {
            self = .google(threshold: c.integer(.riskThreshold))
            return
        }
        let key = ConfigurationKey.riskCWAConfig.name
        guard let path = c.optional(.riskCWAConfig) else {
            throw ConfigurationError("\(key) is required with risk.model cwa: the app's risk-calculation configuration")
        }
        let text: String
        do { text = try TextFile.contents(of: path, limit: 1 << 20) } catch { throw ConfigurationError("\(key): \(error)") }
        do { self = .cwa(try CWARiskConfiguration(json: text)) } catch {
            throw ConfigurationError("\(key): \(path): \(error)")
        }
    }
}
