/// LE Read Buffer Size, version 1 (Core Vol 4 Part E 7.8.2): the controller's LE ACL buffers.
public struct LEReadBufferSizeCommand: HCIParameterlessCommand {
    public typealias ReturnParameters = LEBufferSizeReturn

    public static let opcode = Opcode(ogf: Opcode.leControllerGroup, ocf: 0x0002)

    public init() {}
}
