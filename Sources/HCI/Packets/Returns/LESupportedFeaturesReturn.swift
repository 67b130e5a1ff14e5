/// What LE Read Local Supported Features returns: the controller's LE feature bits.
public struct LESupportedFeaturesReturn: HCIReturnParameters {
    public var status: HCIStatus
    public var features: LEFeatures

    public init(status: HCIStatus = .success, features: LEFeatures) {
        self.status = status
        self.features = features
    }

    public func encode(into buffer: inout [UInt8]) {
        buffer.append(status.rawValue)
        buffer.appendUInt64(features.rawValue)
    }

    public init(returnParameters: ArraySlice<UInt8>) throws(HCIDecodeError) {
        var reader = ByteReader(returnParameters)
        status = HCIStatus(rawValue: try reader.uint8())
        features = LEFeatures(rawValue: try reader.uint64())
        try reader.finish()
    }
}
