/// Read Local Version Information (Core Vol 4 Part E 7.4.1): the controller's specification and firmware versions.
public struct ReadLocalVersionInformationCommand: HCIParameterlessCommand {
    public typealias ReturnParameters = LocalVersionReturn

    public static let opcode = Opcode(ogf: Opcode.informationalGroup, ocf: 0x0001)

    public init() {}
}
