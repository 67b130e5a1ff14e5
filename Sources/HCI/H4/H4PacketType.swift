/// The indicator byte that precedes every packet on an H4 (UART-style) byte stream.
public enum H4PacketType: UInt8, Hashable, Sendable, CaseIterable {
    case command = 0x01
    case acl = 0x02
    case sco = 0x03
    case event = 0x04
    case iso = 0x05

    /// Bytes of the packet header that follow the indicator and hold the payload length.
    var headerLength: Int {
        switch self {
        case .command: 3  // opcode (2), length (1)
        case .acl: 4  // handle and flags (2), length (2)
        case .sco: 3  // handle and flags (2), length (1)
        case .event: 2  // code (1), length (1)
        case .iso: 4  // handle and flags (2), length (14 bits of 2)
        }
    }

    /// The payload length a complete `header` (of `headerLength` bytes) declares.
    func payloadLength(header: ArraySlice<UInt8>) -> Int {
        let start = header.startIndex
        switch self {
        case .command: return Int(header[start + 2])
        case .sco: return Int(header[start + 2])
        case .event: return Int(header[start + 1])
        case .acl: return Int(header[start + 2]) | Int(header[start + 3]) << 8
        case .iso: return Int(header[start + 2]) | Int(header[start + 3] & 0x3F) << 8
        }
    }
}
