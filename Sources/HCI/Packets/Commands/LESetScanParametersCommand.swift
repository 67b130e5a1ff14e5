/// LE Set Scan Parameters (Core Vol 4 Part E 7.8.10): how legacy scanning listens.
///
/// The controller listens for `window` out of every `interval`; GAEN asks for a duty cycle long
/// enough to catch a phone advertising every 200–270 ms.
public struct LESetScanParametersCommand: HCICommand {
    public static let opcode = Opcode(ogf: Opcode.leControllerGroup, ocf: 0x000B)
    /// 2.5 ms to 10.24 s, for both interval and window.
    public static let timingRange: ClosedRange<UInt16> = 0x0004...0x4000

    public var type: ScanType
    public var interval: BasebandSlots
    public var window: BasebandSlots
    public var ownAddressType: OwnAddressType
    public var filterPolicy: ScanFilterPolicy

    public init(
        type: ScanType = .passive, interval: BasebandSlots, window: BasebandSlots,
        ownAddressType: OwnAddressType, filterPolicy: ScanFilterPolicy = .acceptAll
    ) {
        self.type = type
        self.interval = interval
        self.window = window
        self.ownAddressType = ownAddressType
        self.filterPolicy = filterPolicy
    }

    public func encodeParameters(into buffer: inout [UInt8]) {
        buffer.append(type.rawValue)
        buffer.appendUInt16(interval.rawValue)
        buffer.appendUInt16(window.rawValue)
        buffer.append(ownAddressType.rawValue)
        buffer.append(filterPolicy.rawValue)
    }

    /// Rejects reserved enumeration values and timings out of range or with the window longer than the interval.
    public init(parameters: ArraySlice<UInt8>) throws(HCIDecodeError) {
        var reader = ByteReader(parameters)
        type = try reader.enumerated(ScanType.self, field: "LE_Scan_Type")
        interval = BasebandSlots(rawValue: try reader.uint16())
        window = BasebandSlots(rawValue: try reader.uint16())
        ownAddressType = try reader.enumerated(OwnAddressType.self, field: "Own_Address_Type")
        filterPolicy = try reader.enumerated(ScanFilterPolicy.self, field: "Scanning_Filter_Policy")
        try reader.finish()

        guard Self.timingRange.contains(interval.rawValue) else {
            throw .invalidValue(field: "LE_Scan_Interval", value: UInt64(interval.rawValue))
        }
        guard Self.timingRange.contains(window.rawValue), window <= interval else {
            throw .invalidValue(field: "LE_Scan_Window", value: UInt64(window.rawValue))
        }
    }
}
