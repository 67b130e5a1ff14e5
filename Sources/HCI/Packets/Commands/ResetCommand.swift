/// Reset (Core Vol 4 Part E 7.3.2): returns the controller to its power-on state, event masks included.
public struct ResetCommand: HCIParameterlessCommand {
    public static let opcode = Opcode(ogf: Opcode.controllerAndBasebandGroup, ocf: 0x0003)

    public init() {}
}
