/// A bare advertiser on the virtual radio, with no HCI host behind it: a simulated phone, or a test's
/// fixed GAEN beacon.
///
/// Change `address` and `data` together in one callback to rotate like a phone: the radio samples
/// them only at advertising events, so no event ever carries the new address with the old data.
public final class VirtualBeacon: RadioAdvertiser {
    public var address: BDAddress
    public var addressType: AddressType
    /// Legacy advertising data: at most 31 bytes (more is a programming error).
    public var data: [UInt8] {
        didSet {
            precondition(data.count <= LESetAdvertisingDataCommand.maximumDataLength, "VirtualBeacon: data exceeds 31 bytes")
            if data.isEmpty != oldValue.isEmpty { radio?.advertisersChanged() }
        }
    }
    public var isAdvertising: Bool {
        didSet { if isAdvertising != oldValue { radio?.advertisersChanged() } }
    }
    /// The advertising interval; each event also gets the link layer's random 0–10 ms advDelay.
    public var interval: Duration
    public var txPower: Int8
    public var position: RadioPosition

    /// The radio it is on; `VirtualRadio.remove` (or `removeAll`) lets go of it.
    var radio: VirtualRadio?

    init(
        address: BDAddress, addressType: AddressType, data: [UInt8], interval: Duration, txPower: Int8,
        position: RadioPosition, radio: VirtualRadio
    ) {
        self.address = address
        self.addressType = addressType
        self.data = data
        self.interval = interval
        self.txPower = txPower
        self.position = position
        self.radio = radio
        isAdvertising = true
    }

    var identity: ObjectIdentifier { ObjectIdentifier(self) }

    var transmission: AirTransmission? {
        guard isAdvertising, !data.isEmpty else { return nil }
        return AirTransmission(
            address: address, addressType: addressType, pdu: .nonConnectableUndirected, data: data,
            txPower: txPower, interval: interval)
    }
}
