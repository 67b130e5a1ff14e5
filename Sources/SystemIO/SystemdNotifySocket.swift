import CLinux

/// The datagram socket systemd hands a `Type=notify` service in `$NOTIFY_SOCKET`: each datagram is a few
/// newline-separated `KEY=VALUE` assignments (sd_notify(3)'s protocol, spoken here without libsystemd).
/// A path that starts with `@` is in the abstract namespace. Sending never blocks the loop; a datagram
/// that cannot be sent is dropped, since there is nobody else to tell.
public final class SystemdNotifySocket {
    private let fd: Int32
    private var address = sockaddr_un()
    private let length: socklen_t

    /// nil when `path` is empty, relative, too long, or no socket can be made.
    public init?(path: String) {
        let bytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard let first = bytes.first, first == UInt8(ascii: "/") || first == UInt8(ascii: "@"),
              bytes.count < capacity else { return nil }
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { return nil }
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, byte) in bytes.enumerated() { raw[i] = byte }
            if first == UInt8(ascii: "@") { raw[0] = 0 }  // abstract: a leading NUL, no terminator
        }
        // An abstract name is exactly its bytes; a path is NUL-terminated (the zeroed rest of sun_path).
        let pathLength = first == UInt8(ascii: "@") ? bytes.count : bytes.count + 1
        length = socklen_t(MemoryLayout<sa_family_t>.size + pathLength)
    }

    /// The socket systemd named in `NOTIFY_SOCKET`, or nil when the agent was not started by systemd.
    public static func fromEnvironment() -> SystemdNotifySocket? {
        Posix.environment("NOTIFY_SOCKET").flatMap { SystemdNotifySocket(path: $0) }
    }

    /// Sends one datagram; false when it could not be sent.
    @discardableResult
    public func send(_ assignments: String) -> Bool {
        var message = Array(assignments.utf8)
        let sent = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { target in
                message.withUnsafeMutableBytes { sendto(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL), target, length) }
            }
        }
        return sent == message.count
    }

    deinit { close(fd) }
}
