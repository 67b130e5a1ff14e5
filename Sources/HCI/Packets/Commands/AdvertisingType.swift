/// The legacy advertising PDU a controller sends (LE Set Advertising Parameters, Advertising_Type).
///
/// GAEN beacons use `nonConnectableUndirected`: nobody may connect, and nothing is answered.
public enum AdvertisingType: UInt8, Hashable, Sendable, CaseIterable {
    /// ADV_IND: connectable and scannable.
    case connectableUndirected = 0x00
    /// ADV_DIRECT_IND, high duty cycle: the interval fields are ignored.
    case connectableDirectedHighDuty = 0x01
    /// ADV_SCAN_IND: scannable, not connectable.
    case scannableUndirected = 0x02
    /// ADV_NONCONN_IND: neither connectable nor scannable.
    case nonConnectableUndirected = 0x03
    /// ADV_DIRECT_IND, low duty cycle.
    case connectableDirectedLowDuty = 0x04
}
