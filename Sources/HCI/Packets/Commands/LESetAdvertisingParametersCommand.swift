/// LE Set Advertising Parameters (Core Vol 4 Part E 7.8.5): how, how often and where legacy advertising goes out.
public struct LESetAdvertisingParametersCommand: HCICommand {
    public static let opcode = Opcode(ogf: Opcode.leControllerGroup, ocf: 0x0006)
    /// 20 ms to 10.24 s. Core 5.0 dropped the older 100 ms floor for non-connectable advertising.
    public static let intervalRange: ClosedRange<UInt16> = 0x0020...0x4000

    public var intervalMin: BasebandSlots
    public var intervalMax: BasebandSlots
    public var type: AdvertisingType
    public var ownAddressType: OwnAddressType
    public var peerAddressType: AddressType
    /// Only meaningful for directed advertising; zero otherwise.
    public var peerAddress: BDAddress
    public var channelMap: AdvertisingChannelMap
    public var filterPolicy: AdvertisingFilterPolicy

    public init(
        intervalMin: BasebandSlots, intervalMax: BasebandSlots, type: AdvertisingType,
        ownAddressType: OwnAddressType, peerAddressType: AddressType = .public, peerAddress: BDAddress = .zero,
        channelMap: AdvertisingChannelMap = .all, filterPolicy: AdvertisingFilterPolicy = .acceptAll
    ) {
        self.intervalMin = intervalMin
        self.intervalMax = intervalMax
        self.type = type
        self.ownAddressType = ownAddressType
        self.peerAddressType = peerAddressType
        self.peerAddress = peerAddress
        self.channelMap = channelMap
        self.filterPolicy = filterPolicy
    }

    public func encodeParameters(into buffer: inout [UInt8]) {
        buffer.appendUInt16(intervalMin.rawValue)
        buffer.appendUInt16(intervalMax.rawValue)
        buffer.append(type.rawValue)
        buffer.append(ownAddressType.rawValue)
        buffer.append(peerAddressType.rawValue)
        buffer.appendAddress(peerAddress)
        buffer.append(channelMap.rawValue)
        buffer.append(filterPolicy.rawValue)
    }

    /// Rejects reserved enumeration values, an empty or reserved channel map, and (except for high
    /// duty cycle directed advertising, which ignores them) intervals out of range or out of order.
    public init(parameters: ArraySlice<UInt8>) throws(HCIDecodeError) {
        var reader = ByteReader(parameters)
        intervalMin = BasebandSlots(rawValue: try reader.uint16())
        intervalMax = BasebandSlots(rawValue: try reader.uint16())
        type = try reader.enumerated(AdvertisingType.self, field: "Advertising_Type")
        ownAddressType = try reader.enumerated(OwnAddressType.self, field: "Own_Address_Type")
        peerAddressType = try reader.enumerated(AddressType.self, field: "Peer_Address_Type")
        peerAddress = try reader.address()
        channelMap = AdvertisingChannelMap(rawValue: try reader.uint8())
        filterPolicy = try reader.enumerated(AdvertisingFilterPolicy.self, field: "Advertising_Filter_Policy")
        try reader.finish()

        guard channelMap.isValid else {
            throw .invalidValue(field: "Advertising_Channel_Map", value: UInt64(channelMap.rawValue))
        }
        if type != .connectableDirectedHighDuty {
            guard Self.intervalRange.contains(intervalMin.rawValue) else {
                throw .invalidValue(field: "Advertising_Interval_Min", value: UInt64(intervalMin.rawValue))
            }
            guard Self.intervalRange.contains(intervalMax.rawValue), intervalMin <= intervalMax else {
                throw .invalidValue(field: "Advertising_Interval_Max", value: UInt64(intervalMax.rawValue))
            }
        }
    }
}
