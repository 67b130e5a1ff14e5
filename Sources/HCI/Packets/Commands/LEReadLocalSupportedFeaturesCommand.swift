/// LE Read Local Supported Features (Core Vol 4 Part E 7.8.3): the controller's LE feature bits.
public struct LEReadLocalSupportedFeaturesCommand: HCIParameterlessCommand {
    public typealias ReturnParameters = LESupportedFeaturesReturn

    public static let opcode = Opcode(ogf: Opcode.leControllerGroup, ocf: 0x0003)

    public init() {}
}
