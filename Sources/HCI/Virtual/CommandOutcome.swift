import EventLoop

/// What the virtual controller answered to one command, and when it did.
///
/// Kept for every command (`VirtualController.commandLog`); the rejected ones also go to
/// `VirtualController.violations`, which a host test expects to stay empty.
public struct CommandOutcome: Hashable, Sendable, CustomStringConvertible {
    /// Loop time at which the controller executed the command.
    public var time: MonotonicInstant
    public var opcode: Opcode
    public var status: HCIStatus

    public init(time: MonotonicInstant, opcode: Opcode, status: HCIStatus) {
        self.time = time
        self.opcode = opcode
        self.status = status
    }

    public var isRejected: Bool { !status.isSuccess }

    /// `12.500000000s LE Set Random Address (0x2005): 0x0c (Command Disallowed)`.
    public var description: String {
        let name = opcode.name.map { "\($0) (\(opcode))" } ?? "\(opcode)"
        return "\(time) \(name): \(status)"
    }
}
