/// The radio's keys the config file may give: what was measured on this unit, beside what its board model
/// declares in the board profile.
extension ConfigurationKey {
    /// `radio calibrate` measures it and offers to save it here. A board profile's `radio.rssi_correction` is
    /// the model's figure; a value here (this unit's own) takes its place.
    package static let radioRSSICorrection = ConfigurationKey(
        "radio.rssi_correction", .integer(RSSICorrection.range), default: "0",
        "dB added to every RSSI this badge measures before attenuation is computed (as phones add their model's "
            + "rssi_correction); radio calibrate measures it; default: the board profile's, else 0")
}
