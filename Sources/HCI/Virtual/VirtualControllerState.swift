import EventLoop

/// Everything a host has told a virtual controller: what Reset and a power cycle wipe.
///
/// A value type so that the strict rules (`execute`) are a pure function of state and command, and
/// tests can compare whole states. The initial values are the Core specification's power-on defaults.
public struct VirtualControllerState: Hashable, Sendable {
    public internal(set) var eventMask = EventMask.controllerDefault
    public internal(set) var leEventMask = LEEventMask.controllerDefault
    /// Nil until LE Set Random Address: a strict controller will not advertise from a random address
    /// the host never set.
    public internal(set) var randomAddress: BDAddress?
    public internal(set) var advertisingParameters = LESetAdvertisingParametersCommand(
        intervalMin: BasebandSlots(rawValue: 0x0800), intervalMax: BasebandSlots(rawValue: 0x0800),
        type: .connectableUndirected, ownAddressType: .public)
    public internal(set) var advertisingData: [UInt8] = []
    public internal(set) var isAdvertising = false
    public internal(set) var scanParameters = LESetScanParametersCommand(
        type: .passive, interval: BasebandSlots(rawValue: 0x0010), window: BasebandSlots(rawValue: 0x0010),
        ownAddressType: .public)
    public internal(set) var isScanning = false
    public internal(set) var filtersDuplicates = false
    /// When the current scan was enabled: the scan window repeats from here.
    public internal(set) var scanStartedAt = MonotonicInstant.zero
    /// Advertisers already reported in this scan, while duplicate filtering is on.
    var reportedAdvertisers: Set<BDAddress> = []

    public init() {}

    /// Whether LE Meta events with `subevent` may reach the host: both masks must allow them.
    public func allowsLEEvent(_ subevent: LEEventMask) -> Bool {
        eventMask.contains(.leMeta) && leEventMask.contains(subevent)
    }

    /// The address advertising PDUs carry, or nil when the own-address type needs a random address
    /// that was never set. The resolvable types fall back to the identity address, as they do with
    /// an empty resolving list (this controller has none).
    func ownAddress(for type: OwnAddressType, publicAddress: BDAddress) -> (BDAddress, AddressType)? {
        switch type {
        case .public, .resolvableOrPublic: (publicAddress, .public)
        case .random, .resolvableOrRandom: randomAddress.map { ($0, .random) }
        }
    }
}
