/// What LE Read Advertising Physical Channel Tx Power returns: the power advertisements go out at.
///
/// GAEN puts this (in dBm) into the metadata of every beacon so receivers can estimate attenuation.
public struct AdvertisingTxPowerReturn: HCIReturnParameters {
    public var status: HCIStatus
    /// dBm, −127 to +20 per the specification.
    public var txPower: Int8

    public init(status: HCIStatus = .success, txPower: Int8) {
        self.status = status
        self.txPower = txPower
    }

    public func encode(into buffer: inout [UInt8]) {
        buffer.append(status.rawValue)
        buffer.appendInt8(txPower)
    }

    public init(returnParameters: ArraySlice<UInt8>) throws(HCIDecodeError) {
        var reader = ByteReader(returnParameters)
        status = HCIStatus(rawValue: try reader.uint8())
        txPower = try reader.int8()
        try reader.finish()
    }
}
