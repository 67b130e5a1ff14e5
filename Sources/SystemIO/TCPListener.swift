import CLinux

/// A non-blocking TCP listening socket on an IPv4 endpoint, and the connections it accepts: the system calls
/// the metrics endpoint needs, kept at the system edge with the others.
public enum TCPListener {
    /// A listening socket (non-blocking, close-on-exec, SO_REUSEADDR) and the port it got (the kernel's choice
    /// for port 0).
    public static func listen(on endpoint: IPv4Endpoint, backlog: Int32 = 64) throws(SystemError) -> (fd: Int32, port: UInt16) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw .last("socket") }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = endpoint.socketAddress
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0, CLinux.listen(fd, backlog) == 0 else {
            let error = SystemError.last("bind \(endpoint)")
            CLinux.close(fd)
            throw error
        }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return (fd, UInt16(bigEndian: address.sin_port))
    }
}
