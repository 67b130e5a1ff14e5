/// Return parameters that are only a status: the answer to every command that sets something.
public struct StatusReturn: HCIReturnParameters {
    public var status: HCIStatus

    public init(status: HCIStatus) { self.status = status }

    public func encode(into buffer: inout [UInt8]) {
        buffer.append(status.rawValue)
    }

    public init(returnParameters: ArraySlice<UInt8>) throws(HCIDecodeError) {
        var reader = ByteReader(returnParameters)
        status = HCIStatus(rawValue: try reader.uint8())
        try reader.finish()
    }
}
