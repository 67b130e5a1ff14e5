/// Read BD_ADDR (Core Vol 4 Part E 7.4.6): the controller's public address.
public struct ReadBDAddrCommand: HCIParameterlessCommand {
    public typealias ReturnParameters = BDAddrReturn

    public static let opcode = Opcode(ogf: Opcode.informationalGroup, ocf: 0x0009)

    public init() {}
}
