import CLinux

/// An IPv4 address and a port to listen on (`metrics.listen`), as the C library reads the address: the one
/// parser behind both the configuration's check (`ConfigurationKind.ipv4Endpoint`) and the socket's bind.
public struct IPv4Endpoint: Equatable, Sendable, CustomStringConvertible {
    public var host: String
    public var port: UInt16
    fileprivate var ipv4: in_addr_t

    /// `ADDRESS:PORT` with a dotted IPv4 address and a port from 0 (any) to 65535; nil for anything else.
    public init?(_ text: String) {
        guard let colon = text.lastIndex(of: ":"), let port = UInt16(text[text.index(after: colon)...]) else { return nil }
        let host = String(text[..<colon])
        var address = in_addr()
        guard inet_pton(AF_INET, host, &address) == 1 else { return nil }
        self.host = host
        self.port = port
        ipv4 = address.s_addr
    }

    /// 127.0.0.0/8.
    public var isLoopback: Bool { UInt32(bigEndian: ipv4) >> 24 == 127 }

    public var description: String { "\(host):\(port)" }

    public var socketAddress: sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = ipv4
        return address
    }
}
