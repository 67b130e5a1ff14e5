/// What Read BD_ADDR returns: the controller's public address (all zero when it has none).
public struct BDAddrReturn: HCIReturnParameters {
    public var status: HCIStatus
    public var address: BDAddress

    public init(status: HCIStatus = .success, address: BDAddress) {
        self.status = status
        self.address = address
    }

    public func encode(into buffer: inout [UInt8]) {
        buffer.append(status.rawValue)
        buffer.appendAddress(address)
    }

    public init(returnParameters: ArraySlice<UInt8>) throws(HCIDecodeError) {
        var reader = ByteReader(returnParameters)
        status = HCIStatus(rawValue: try reader.uint8())
        address = try reader.address()
        try reader.finish()
    }
}
