/// LE Read Advertising Physical Channel Tx Power (Core Vol 4 Part E 7.8.6): the power legacy advertising uses.
public struct LEReadAdvertisingPhysicalChannelTxPowerCommand: HCIParameterlessCommand {
    public typealias ReturnParameters = AdvertisingTxPowerReturn

    public static let opcode = Opcode(ogf: Opcode.leControllerGroup, ocf: 0x0007)

    public init() {}
}
