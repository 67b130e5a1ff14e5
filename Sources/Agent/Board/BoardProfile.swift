import AgentBase
import ENCore
import HCI
import Indicators

/// A board profile (`Board/<NAME>.conf`): `key = value` lines describing the hardware the agent runs on.
/// The `virtual` board is built in, so `enbeacon` runs anywhere with no files and no hardware.
package struct BoardProfile: Equatable, Sendable {
    package var name: String
    package var transport: TransportSpec
    /// Simulated phones sharing the virtual radio (virtual transport only).
    package var simulatedPhones: Int
    package var clock: ClockPolicy
    /// Where the console runs on this board (a serial line, say); nil: `ConsoleSpec.automatic`.
    /// `--console` overrides it.
    package var console: ConsoleSpec?
    /// The LED, buzzer and button (`indicator.led`, `indicator.buzzer`, `indicator.button`); none by default.
    package var indicators = IndicatorWiring()
    /// How well the TX power this badge broadcasts is known (`radio.calibration_confidence`, 0–3), sent in its
    /// metadata (v1.1). Lowest unless the profile says otherwise: nobody measured it.
    package var calibrationConfidence = CalibrationConfidence.lowest
    /// The TX power at the antenna, dBm (`radio.tx_power`): what the metadata tells receivers, in place of
    /// the controller's reported advertising TX power, which leaves out the antenna and its matching. Nil:
    /// the controller's report.
    package var txPower: Int8?
    /// This board's RSSI correction, dB (`radio.rssi_correction`), added to every RSSI it measures before an
    /// attenuation is computed, as phones add their model's; nil: none declared (0, unless the config's
    /// `radio.rssi_correction` gives this unit's own, measured with `radio calibrate`).
    package var rssiCorrection: Int?

    package static let virtual = BoardProfile(name: "virtual", transport: .virtual, simulatedPhones: 3, clock: .trusted,
                                             indicators: .virtual)
    static let knownKeys = ["name", "transport", "simulated_phones", "clock", "console", "radio.calibration_confidence",
                                    "radio.tx_power", "radio.rssi_correction"]
        + IndicatorWiring.keys

    package init(name: String, transport: TransportSpec, simulatedPhones: Int = 0, clock: ClockPolicy = .ntp,
                indicators: IndicatorWiring = IndicatorWiring()) {
        self.name = name
        self.transport = transport
        self.simulatedPhones = simulatedPhones
        self.clock = clock
        self.indicators = indicators
    }

    /// Parses a profile; every error names the line and what was expected there.
    package init(parsing text: String, defaultName: String) throws(ConfigurationError) {
        self = BoardProfile(name: defaultName, transport: .virtual)
        for (key, value, line) in try KeyValueLines.parse(text) {
            switch key {
            case "name": name = value
            case "transport":
                do { transport = try TransportSpec(parsing: value) } catch {
                    throw ConfigurationError(line: line, "transport \(error)")
                }
            case "simulated_phones":
                guard let n = Int(value), (0...50).contains(n) else {
                    throw ConfigurationError(line: line, "simulated_phones: expected 0-50, got '\(value)'")
                }
                simulatedPhones = n
            case "clock":
                guard let policy = ClockPolicy(rawValue: value) else {
                    throw ConfigurationError(line: line, "clock: expected ntp, rtc or trusted, got '\(value)'")
                }
                clock = policy
            case "console":
                do { console = try ConsoleSpec(parsing: value) } catch { throw ConfigurationError(line: line, "console: \(error)") }
            case "radio.calibration_confidence":
                // The number, as the metadata carries it, or its name.
                guard let confidence = Int(value).flatMap(CalibrationConfidence.init(rawValue:))
                    ?? CalibrationConfidence(name: value) else {
                    throw ConfigurationError(line: line, "radio.calibration_confidence: expected 0-3 (lowest, low, medium, high), "
                                      + "got '\(value)'")
                }
                calibrationConfidence = confidence
            case "radio.tx_power":
                // Receivers drop metadata whose TX power lies outside this range (MatchingRules.txPowerRange).
                guard let dBm = Int8(value), (-60...20).contains(dBm) else {
                    throw ConfigurationError(line: line, "radio.tx_power: expected -60 to 20 (dBm at the antenna), got '\(value)'")
                }
                txPower = dBm
            case "radio.rssi_correction":
                guard let dB = Int(value), RSSICorrection.range.contains(dB) else {
                    throw ConfigurationError(line: line, "radio.rssi_correction: expected \(RSSICorrection.range.lowerBound) "
                                      + "to \(RSSICorrection.range.upperBound) (dB), got '\(value)'")
                }
                rssiCorrection = dB
            case _ where IndicatorWiring.keys.contains(key):
                do { try indicators.set(key, value) } catch { throw ConfigurationError(line: line, "\(key): \(error)") }
            default:
                throw ConfigurationError(line: line, "unknown key '\(key)' (known: \(Self.knownKeys.joined(separator: ", ")))")
            }
        }
    }
}
