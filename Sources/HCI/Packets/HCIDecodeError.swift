/// Why bytes from the wire are not a valid HCI packet.
///
/// Every decoder in this module throws one of these instead of trapping, so a controller that sends
/// garbage (or a host that sends garbage to the virtual controller) costs a counted error, never the process.
/// Lengths are in bytes; `field` names the parameter as the Core specification spells it.
public enum HCIDecodeError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The bytes end before a fixed-size field that must follow.
    case truncated(needed: Int, available: Int)
    /// A packet header's length field disagrees with the number of bytes that follow it.
    case lengthMismatch(declared: Int, actual: Int)
    /// Bytes remain after the last field of a packet whose layout is fully known.
    case trailingBytes(Int)
    /// A field holds a value the specification reserves or forbids.
    case invalidValue(field: String, value: UInt64)
    /// A report-carrying event claims zero reports, which the specification does not allow.
    case noReports
    /// A report count promises more reports than the remaining bytes could hold even with empty data.
    case reportCountOverrun(count: Int, available: Int)
    /// A variable-length field declares more bytes than the packet has left.
    case dataLengthOverrun(declared: Int, available: Int)
    /// Parameters were decoded as the answer to, or as, a different command.
    case opcodeMismatch(expected: Opcode, actual: Opcode)

    public var description: String {
        switch self {
        case .truncated(let needed, let available):
            "truncated: needed \(needed) more byte(s), \(available) left"
        case .lengthMismatch(let declared, let actual):
            "length field says \(declared) byte(s) but \(actual) follow"
        case .trailingBytes(let count):
            "\(count) unexpected trailing byte(s)"
        case .invalidValue(let field, let value):
            "invalid \(field) 0x\(String(value, radix: 16))"
        case .noReports:
            "report event with zero reports"
        case .reportCountOverrun(let count, let available):
            "\(count) report(s) cannot fit in the \(available) byte(s) left"
        case .dataLengthOverrun(let declared, let available):
            "data length \(declared) overruns the \(available) byte(s) left"
        case .opcodeMismatch(let expected, let actual):
            "expected opcode \(expected), got \(actual)"
        }
    }
}
