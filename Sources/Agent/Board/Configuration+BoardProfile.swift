import AgentBase
/// The board profile's values in a configuration, under the config file's: the agent's, and `enbeacon match`'s
/// so that it corrects RSSIs as the badge would.
extension Configuration {
    /// Puts `board`'s configuration values (`radio.rssi_correction`) under this configuration's own. The board
    /// file's range is the key's, so this is refused only if the two ever part.
    package mutating func setBoardValues(of board: BoardProfile) throws(ConfigurationError) {
        if let correction = board.rssiCorrection {
            try setBoardValue(ConfigurationKey.radioRSSICorrection.name, to: "\(correction)")
        }
    }
}
