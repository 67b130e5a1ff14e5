/// The matching rules of SPEC §4 as numbers, so tests can name the edges.
public struct MatchingRules: Sendable {
    /// A sighting in interval s matches RPI j of a key when `N − 12 ≤ s ≤ N + 12`, N = rsin + j (±2 h).
    public var toleranceIntervals: Int64 = 12
    /// Sightings of one RPI more than 20 minutes after its first sighting are dropped (replay guard).
    public var replayWindowSeconds: Int64 = 20 * 60
    /// TX power outside this range means the metadata was not made by a real sender: drop the sighting.
    /// enbeacon takes Apple's wider lower bound (−60 dBm); Google uses −50.
    public var txPowerRange: ClosedRange<Int> = -60...20
    /// Keys and sightings older than this are ignored.
    public var retentionSeconds: Int64 = 14 * 86_400
    /// The receiving badge's RSSI correction, dB, added to every RSSI it measured before the attenuation is
    /// computed (attenuation = sender's TX power − (RSSI + correction)), as phones add their model's
    /// `rssi_correction`. Applied when matching, not when recording, so a calibration made later also
    /// corrects the sightings already stored.
    public var rssiCorrection = 0

    public init() {}
}
