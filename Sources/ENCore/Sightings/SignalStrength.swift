/// The received signal of one sighting: the strongest and the mean RSSI of its scan's reports, dBm.
///
/// **A sighting without RSSI.** A controller may report an advertisement without measuring its RSSI (the
/// Bluetooth Core specification's value 127, "not available"; HCI turns it into nil at the packet). Such a
/// sighting is `Sighting.signal == nil` everywhere after the radio — in the scan aggregate, the store, the
/// matcher and risk scoring — and only the store's 28-byte entry writes it as `notAvailable` in both RSSI
/// bytes, as it always has.
///
/// What it means for matching is decided once, here: the RPI was heard, so the encounter is real and the
/// sighting is kept; how close it was is unknown, so it counts as the farthest encounter there is, at
/// attenuation `Sighting.unknownAttenuation` (255 dB). In v1 scoring that puts its minutes in the last
/// attenuation bucket and scores it with the lowest attenuation level; in v2 it falls beyond every
/// attenuation threshold. A missing RSSI can therefore add time at the "far" level but never make an
/// encounter look closer than a measured one would.
public struct SignalStrength: Hashable, Sendable {
    /// The store's code for "no RSSI" in its RSSI bytes (and HCI's "RSSI not available"); never a measurement,
    /// since real RSSIs lie within −127…+20 dBm.
    public static let notAvailable: Int8 = 127

    /// Strongest report, dBm.
    public var max: Int8
    /// Mean over the reports that carried an RSSI, dBm (rounded half away from zero).
    public var mean: Int8

    public init(max: Int8, mean: Int8) {
        self.max = max
        self.mean = mean
    }

    /// The signal stored as two RSSI bytes: nil when either holds `notAvailable`.
    public init?(storedMax max: Int8, mean: Int8) {
        guard max != Self.notAvailable, mean != Self.notAvailable else { return nil }
        self.init(max: max, mean: mean)
    }
}
