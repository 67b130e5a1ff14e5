/// What Read Local Version Information returns: which specification and firmware the controller runs.
///
/// Worth logging at start: controller quirks are usually keyed on manufacturer and subversion.
public struct LocalVersionReturn: HCIReturnParameters {
    public var status: HCIStatus
    /// The Core specification version of the HCI (0x09 = 5.0, 0x0B = 5.2, 0x0D = 5.4).
    public var hciVersion: UInt8
    public var hciRevision: UInt16
    public var lmpVersion: UInt8
    /// The Bluetooth SIG company identifier of the controller's maker.
    public var manufacturer: UInt16
    public var lmpSubversion: UInt16

    public init(
        status: HCIStatus = .success, hciVersion: UInt8, hciRevision: UInt16,
        lmpVersion: UInt8, manufacturer: UInt16, lmpSubversion: UInt16
    ) {
        self.status = status
        self.hciVersion = hciVersion
        self.hciRevision = hciRevision
        self.lmpVersion = lmpVersion
        self.manufacturer = manufacturer
        self.lmpSubversion = lmpSubversion
    }

    public func encode(into buffer: inout [UInt8]) {
        buffer.append(status.rawValue)
        buffer.append(hciVersion)
        buffer.appendUInt16(hciRevision)
        buffer.append(lmpVersion)
        buffer.appendUInt16(manufacturer)
        buffer.appendUInt16(lmpSubversion)
    }

    public init(returnParameters: ArraySlice<UInt8>) throws(HCIDecodeError) {
        var reader = ByteReader(returnParameters)
        status = HCIStatus(rawValue: try reader.uint8())
        hciVersion = try reader.uint8()
        hciRevision = try reader.uint16()
        lmpVersion = try reader.uint8()
        manufacturer = try reader.uint16()
        lmpSubversion = try reader.uint16()
        try reader.finish()
    }
}
