/// The PDU behind a legacy advertising report (LE Advertising Report, Event_Type).
public enum LegacyAdvertisingEventType: UInt8, Hashable, Sendable, CaseIterable {
    /// ADV_IND
    case connectableUndirected = 0x00
    /// ADV_DIRECT_IND
    case connectableDirected = 0x01
    /// ADV_SCAN_IND
    case scannableUndirected = 0x02
    /// ADV_NONCONN_IND: what GAEN beacons send.
    case nonConnectableUndirected = 0x03
    /// SCAN_RSP: the answer to an active scanner's request.
    case scanResponse = 0x04
}
