/// The bounds of a receiver's RSSI correction (dB), shared by the board profile, the config and `radio calibrate`.
///
/// Phones' corrections in Google's per-model calibration table lie within a few dB to about 20; a figure beyond
/// ±40 dB says the measurement went wrong (a reference beacon behind a wall, or the wrong TX power given), not
/// that the radio is that far off.
package enum RSSICorrection {
    package static let range = -40...40
}
