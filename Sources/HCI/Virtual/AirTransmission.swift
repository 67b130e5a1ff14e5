/// What one advertiser puts on the air at each advertising event, as the radio and scanners see it.
struct AirTransmission {
    var address: BDAddress
    var addressType: AddressType
    var pdu: AdvertisingType
    var data: [UInt8]
    /// dBm at the antenna: the path-loss model starts from here.
    var txPower: Int8
    /// Time between advertising events, before the random advDelay the link layer adds to each.
    var interval: Duration
}

/// Anything on the virtual radio that can advertise: a controller driven by a host, or a bare beacon.
protocol RadioAdvertiser: AnyObject {
    var position: RadioPosition { get }
    /// What goes out at the next advertising event; nil while not advertising (or advertising nothing).
    var transmission: AirTransmission? { get }
    /// Which advertiser this is, for the radio's schedule. A requirement, not `ObjectIdentifier(advertiser)`
    /// at the call site: Embedded Swift cannot pass an existential to that generic initialiser.
    var identity: ObjectIdentifier { get }
}
