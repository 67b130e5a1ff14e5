/// LE Set Advertising Data (Core Vol 4 Part E 7.8.7): the bytes every legacy advertisement carries.
///
/// The parameter block is always 32 bytes: a length, then the data zero-padded to 31. Decoding keeps
/// only the significant bytes and ignores what the padding holds, as controllers do.
public struct LESetAdvertisingDataCommand: HCICommand {
    public static let opcode = Opcode(ogf: Opcode.leControllerGroup, ocf: 0x0008)
    public static let maximumDataLength = 31

    public let data: [UInt8]

    /// More than 31 bytes cannot be encoded: passing them is a programming error.
    public init(data: [UInt8]) {
        precondition(data.count <= Self.maximumDataLength, "legacy advertising data exceeds 31 bytes")
        self.data = data
    }

    public func encodeParameters(into buffer: inout [UInt8]) {
        buffer.append(UInt8(data.count))
        buffer += data
        buffer += repeatElement(0, count: Self.maximumDataLength - data.count)
    }

    public init(parameters: ArraySlice<UInt8>) throws(HCIDecodeError) {
        var reader = ByteReader(parameters)
        let length = try reader.uint8()
        guard Int(length) <= Self.maximumDataLength else {
            throw .invalidValue(field: "Advertising_Data_Length", value: UInt64(length))
        }
        let block = try reader.bytes(count: Self.maximumDataLength)
        try reader.finish()
        data = Array(block.prefix(Int(length)))
    }
}
