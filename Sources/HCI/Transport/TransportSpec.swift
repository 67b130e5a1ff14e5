/// Where the controller is, as written on the command line or in a board profile:
/// `user:hci0`, `uart:/dev/ttyACM0[,BAUD][,rtscts]`, `tcp:HOST:PORT`, `virtual`.
public enum TransportSpec: Equatable, Sendable, CustomStringConvertible {
    case userChannel(adapter: UInt16)
    case uart(path: String, baud: Int, flowControl: Bool)
    case tcp(host: String, port: UInt16)
    case virtual

    public static let defaultBaud = 115_200
    /// The rates termios can set on Linux (cfsetspeed takes only these).
    public static let supportedBauds = [9600, 19200, 38400, 57600, 115_200, 230_400, 460_800, 500_000,
                                        576_000, 921_600, 1_000_000, 1_152_000, 1_500_000, 2_000_000,
                                        2_500_000, 3_000_000, 3_500_000, 4_000_000]

    public init(parsing text: String) throws(TransportSpecError) {
        if text == "virtual" { self = .virtual; return }
        guard let colon = text.firstIndex(of: ":") else { throw .unknownKind(text) }
        let kind = text[..<colon]
        let rest = String(text[text.index(after: colon)...])
        switch kind {
        case "user":
            guard rest.hasPrefix("hci"), let n = Self.decimal(rest.dropFirst(3), as: UInt16.self) else {
                throw .badAdapter(rest)
            }
            self = .userChannel(adapter: n)
        case "uart":
            let parts = rest.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            guard let path = parts.first, path.hasPrefix("/") else { throw .badDevicePath(rest) }
            var baud = Self.defaultBaud
            var flow = false
            for option in parts.dropFirst() {
                if option == "rtscts" {
                    flow = true
                } else if let b = Self.decimal(option[...], as: Int.self), Self.supportedBauds.contains(b) {
                    baud = b
                } else {
                    throw .badUARTOption(option)
                }
            }
            self = .uart(path: path, baud: baud, flowControl: flow)
        case "tcp":
            guard let portColon = rest.lastIndex(of: ":") else { throw .badHostPort(rest) }
            var host = rest[..<portColon]
            // [::1]:9000, the usual way to write an IPv6 address with a port; getaddrinfo wants it bare.
            if host.hasPrefix("["), host.hasSuffix("]"), host.count >= 2 { host = host.dropFirst().dropLast() }
            guard !host.isEmpty, let port = Self.decimal(rest[rest.index(after: portColon)...], as: UInt16.self),
                  port > 0 else {
                throw .badHostPort(rest)
            }
            self = .tcp(host: String(host), port: port)
        default:
            throw .unknownKind(text)
        }
    }

    /// Digits only: the integer initialisers alone would also take "+1" or "-0".
    private static func decimal<T: FixedWidthInteger>(_ text: Substring, as: T.Type) -> T? {
        guard !text.isEmpty, text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else {
            return nil
        }
        return T(text)
    }

    public var description: String {
        switch self {
        case .userChannel(let n): "user:hci\(n)"
        case .uart(let path, let baud, let flow): "uart:\(path),\(baud)" + (flow ? ",rtscts" : "")
        case .tcp(let host, let port): "tcp:\(host):\(port)"
        case .virtual: "virtual"
        }
    }
}

public enum TransportSpecError: Error, Equatable, CustomStringConvertible {
    case unknownKind(String)
    case badAdapter(String)
    case badDevicePath(String)
    case badUARTOption(String)
    case badHostPort(String)

    public var description: String {
        let forms = "expected user:hciN, uart:/dev/DEVICE[,BAUD][,rtscts], tcp:HOST:PORT or virtual"
        switch self {
        case .unknownKind(let t): return "'\(t)': \(forms)"
        case .badAdapter(let t): return "'\(t)': expected an adapter name like hci0"
        case .badDevicePath(let t): return "'\(t)': expected an absolute device path like /dev/ttyAMA0"
        case .badUARTOption(let t):
            return "'\(t)': expected a baud rate (\(TransportSpec.supportedBauds.map(String.init).joined(separator: ", "))) or rtscts"
        case .badHostPort(let t): return "'\(t)': expected HOST:PORT with a port 1-65535"
        }
    }
}
