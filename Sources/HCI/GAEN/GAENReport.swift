import ENCore
import EventLoop

/// One received GAEN advertisement, as the radio heard it: before aggregation or storage.
public struct GAENReport: Equatable, Sendable {
    public var payload: AdvertisingPayload
    public var address: BDAddress
    /// nil when the controller reported 127 ("not available").
    public var rssi: Int8?
    public var receivedAt: MonotonicInstant

    public init(payload: AdvertisingPayload, address: BDAddress, rssi: Int8?, receivedAt: MonotonicInstant) {
        self.payload = payload
        self.address = address
        self.rssi = rssi
        self.receivedAt = receivedAt
    }
}
