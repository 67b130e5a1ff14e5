/// LE Set Random Address (Core Vol 4 Part E 7.8.4): the random address used when the own address type is random.
///
/// A strict controller refuses this with Command Disallowed while advertising or scanning, so the
/// host must pause both to rotate the address together with the RPI.
public struct LESetRandomAddressCommand: HCICommand {
    public static let opcode = Opcode(ogf: Opcode.leControllerGroup, ocf: 0x0005)

    public var address: BDAddress

    public init(address: BDAddress) { self.address = address }

    public func encodeParameters(into buffer: inout [UInt8]) {
        buffer.appendAddress(address)
    }

    public init(parameters: ArraySlice<UInt8>) throws(HCIDecodeError) {
        var reader = ByteReader(parameters)
        address = try reader.address()
        try reader.finish()
    }
}
