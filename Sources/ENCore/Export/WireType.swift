/// The low three bits of a protobuf field tag: how the field's value is laid out on the wire.
public enum WireType: UInt8, Sendable, CustomStringConvertible {
    case varint = 0
    case fixed64 = 1
    case lengthDelimited = 2
    /// Groups (3 and 4) are a proto2 relic no export uses; they are still skipped when unknown.
    case startGroup = 3
    case endGroup = 4
    case fixed32 = 5

    public var description: String {
        switch self {
        case .varint: "varint"
        case .fixed64: "fixed64"
        case .lengthDelimited: "length-delimited"
        case .startGroup: "start-group"
        case .endGroup: "end-group"
        case .fixed32: "fixed32"
        }
    }
}
