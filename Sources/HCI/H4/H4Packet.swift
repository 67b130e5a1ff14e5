/// One HCI packet as H4 frames it: an indicator byte, then the packet (header and payload).
///
/// The associated bytes are the packet without the indicator, which is what the command and event
/// codecs read and write.
public enum H4Packet: Hashable, Sendable {
    case command([UInt8])
    case acl([UInt8])
    case sco([UInt8])
    case event([UInt8])
    case iso([UInt8])

    public init(type: H4PacketType, bytes: [UInt8]) {
        switch type {
        case .command: self = .command(bytes)
        case .acl: self = .acl(bytes)
        case .sco: self = .sco(bytes)
        case .event: self = .event(bytes)
        case .iso: self = .iso(bytes)
        }
    }

    public init(_ command: some HCICommand) {
        self = .command(command.encoded())
    }

    public init(_ command: HCICommandPacket) {
        self = .command(command.encoded())
    }

    public init(_ event: HCIEvent) {
        self = .event(event.encoded())
    }

    public var type: H4PacketType {
        switch self {
        case .command: .command
        case .acl: .acl
        case .sco: .sco
        case .event: .event
        case .iso: .iso
        }
    }

    /// The packet without its indicator byte.
    public var bytes: [UInt8] {
        switch self {
        case .command(let bytes), .acl(let bytes), .sco(let bytes), .event(let bytes), .iso(let bytes): bytes
        }
    }

    /// The indicator byte followed by the packet: what goes on the wire.
    public func encoded() -> [UInt8] {
        let body = bytes
        var out: [UInt8] = []
        out.reserveCapacity(1 + body.count)
        out.append(type.rawValue)
        out += body
        return out
    }
}
