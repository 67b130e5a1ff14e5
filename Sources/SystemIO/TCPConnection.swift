import CLinux

/// An outgoing TCP connection made without blocking the loop: started here, finished when the socket
/// turns writable (`result`).
public enum TCPConnection {
    /// Why a connection could not be started.
    public enum StartFailure: Error, Equatable, CustomStringConvertible {
        /// getaddrinfo's own words.
        case unresolved(String)
        case system(SystemError)

        public var description: String {
            switch self {
            case .unresolved(let text): text
            case .system(let error): error.reason
            }
        }
    }

    /// Starts a non-blocking connection to the first address of `host` that takes one, with TCP_NODELAY.
    /// Name resolution uses getaddrinfo, which for numeric addresses and `localhost` answers without
    /// touching the network.
    public static func start(host: String, port: UInt16) throws(StartFailure) -> Int32 {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_family = AF_UNSPEC
        var list: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(host, String(port), &hints, &list)
        guard rc == 0, let first = list else { throw .unresolved(String(cString: gai_strerror(rc))) }
        defer { freeaddrinfo(list) }
        var lastError = SystemError(call: "connect", code: ECONNREFUSED)
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let ai = entry {
            let fd = socket(ai.pointee.ai_family,
                            ai.pointee.ai_socktype | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue),
                            ai.pointee.ai_protocol)
            if fd >= 0 {
                var one: Int32 = 1
                _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
                if connect(fd, ai.pointee.ai_addr, ai.pointee.ai_addrlen) == 0 || errno == EINPROGRESS {
                    return fd
                }
                lastError = .last("connect")
                close(fd)
            }
            entry = ai.pointee.ai_next
        }
        throw .system(lastError)
    }

    /// After the socket became writable: nil when connected, else why not.
    public static func result(of fd: Int32) -> SystemError? {
        var error: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) == 0 else { return .last("getsockopt") }
        return error == 0 ? nil : SystemError(call: "connect", code: error)
    }
}
