/// What LE Read Buffer Size returns. A zero length means the controller shares its BR/EDR buffers
/// for LE ACL data; enbeacon sends no ACL data, it only logs these.
public struct LEBufferSizeReturn: HCIReturnParameters {
    public var status: HCIStatus
    public var aclDataPacketLength: UInt16
    public var totalACLDataPackets: UInt8

    public init(status: HCIStatus = .success, aclDataPacketLength: UInt16, totalACLDataPackets: UInt8) {
        self.status = status
        self.aclDataPacketLength = aclDataPacketLength
        self.totalACLDataPackets = totalACLDataPackets
    }

    public func encode(into buffer: inout [UInt8]) {
        buffer.append(status.rawValue)
        buffer.appendUInt16(aclDataPacketLength)
        buffer.append(totalACLDataPackets)
    }

    public init(returnParameters: ArraySlice<UInt8>) throws(HCIDecodeError) {
        var reader = ByteReader(returnParameters)
        status = HCIStatus(rawValue: try reader.uint8())
        aclDataPacketLength = try reader.uint16()
        totalACLDataPackets = try reader.uint8()
        try reader.finish()
    }
}
