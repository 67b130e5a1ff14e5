import CLinux

/// A unix stream socket at a path: the console server's listening end and `enbeacon ctl`'s client end.
public enum UnixSocket {
    /// `sun_path` holds 108 bytes, the terminating NUL included.
    public static let maxPathBytes = 107

    /// A non-blocking listening socket at `path`, mode 0600 from the moment it exists.
    ///
    /// A socket already at `path` is replaced when nothing answers on it (the agent that made it died
    /// without removing it); one that answers means another agent is using it, and anything that is
    /// not a socket is left alone: both are errors.
    public static func listen(at path: String, backlog: Int32 = 16) throws(ListenFailure) -> Int32 {
        var status = stat()
        if lstat(path, &status) == 0 {
            guard FileStatus(status).kind == .socket else {
                throw ListenFailure("\(path) exists and is not a socket: move it away")
            }
            if let fd = try? connect(to: path) {
                close(fd)
                throw ListenFailure("\(path): another agent is answering on it")
            }
            guard unlink(path) == 0 || errno == ENOENT else { throw failure("cannot remove the stale \(path)") }
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw failure("socket for \(path)") }
        // bind creates the file with the umask's mode; narrowing the umask around it means there is no
        // moment when anyone else could connect (the process is single-threaded here).
        let savedMask = umask(0o177)
        let bound = withAddress(path) { bind(fd, $0, $1) }
        let bindError = errno
        umask(savedMask)
        guard let bound else {
            close(fd)
            throw ListenFailure("\(path): the path is longer than the \(maxPathBytes) bytes a unix socket allows")
        }
        guard bound == 0 else {
            close(fd)
            throw failure("cannot create \(path)", code: bindError)
        }
        guard chmod(path, 0o600) == 0, CLinux.listen(fd, backlog) == 0 else {
            let error = failure("cannot listen on \(path)")
            close(fd)
            unlink(path)
            throw error
        }
        return fd
    }

    /// A blocking client connection to the socket at `path`. The error keeps errno so the caller can
    /// tell "nobody there" (ENOENT, ECONNREFUSED) from "not allowed" (EACCES).
    ///
    /// A listener that has stopped accepting (an agent frozen, its backlog full) makes a unix connect wait;
    /// with `timeout` it gives up after that long with EAGAIN. The timeout stays set for sends.
    public static func connect(to path: String, timeout: Duration? = nil) throws(SystemError) -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .last("socket") }
        if let timeout { setTimeout(.sending, timeout, on: fd) }
        while true {
            guard let result = withAddress(path, { CLinux.connect(fd, $0, $1) }) else {
                close(fd)
                throw SystemError(call: "connect", code: ENAMETOOLONG)
            }
            if result == 0 { return fd }
            if errno == EINTR { continue }
            let error = SystemError.last("connect")
            close(fd)
            throw error
        }
    }

    /// Which way a timeout on a blocking socket applies.
    public enum Direction: Sendable { case sending, receiving }

    /// SO_SNDTIMEO or SO_RCVTIMEO on a blocking socket; zero waits for ever.
    /// Two connected stream sockets (close-on-exec): a child's stdin, fed by the loop without SIGPIPE.
    public static func pair() throws(SystemError) -> (Int32, Int32) {
        var ends: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0 else {
            throw .last("socketpair")
        }
        return (ends[0], ends[1])
    }

    public static func setTimeout(_ direction: Direction, _ timeout: Duration, on fd: Int32) {
        let (seconds, attoseconds) = timeout.components
        _ = enb_set_socket_timeout(fd, direction == .sending ? 1 : 0, seconds, Int(attoseconds / 1_000_000_000_000))
    }

    /// Calls `body` with `path` as a socket address; nil when the path does not fit.
    static func withAddress<R>(_ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R? {
        let bytes = Array(path.utf8)
        guard !bytes.isEmpty, bytes.count <= maxPathBytes, !bytes.contains(0) else { return nil }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
    }

    private static func failure(_ what: String, code: Int32 = errno) -> ListenFailure {
        ListenFailure("\(what): \(String(cString: strerror(code)))")
    }

    /// Why a listening socket could not be made, in words for the person starting the agent.
    public struct ListenFailure: Error, Hashable, Sendable, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }
}
