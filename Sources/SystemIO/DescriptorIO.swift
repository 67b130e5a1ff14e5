import CLinux

/// Reads and writes that never block the loop, on descriptors the console may not own.
///
/// stdin and stdout share their open file description with the shell that started the agent (and
/// stdout usually with stderr, where the log goes), so switching them to O_NONBLOCK for good would
/// leave the shell's terminal non-blocking after exit and make log writes fail with EAGAIN. Instead the
/// flag is set around each call and put back at once; the loop is single-threaded, so nothing else of
/// ours can run in between.
public enum DescriptorIO {
    public enum Outcome: Hashable {
        case transferred(Int)
        case wouldBlock
        case endOfFile
        case failed(Int32)
    }

    public static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) -> Outcome {
        withNonBlocking(fd) {
            while true {
                let count = CLinux.read(fd, buffer.baseAddress, buffer.count)
                if count > 0 { return .transferred(count) }
                if count == 0 { return .endOfFile }
                if errno == EINTR { continue }
                return errno == EAGAIN || errno == EWOULDBLOCK ? .wouldBlock : .failed(errno)
            }
        }
    }

    public static func write(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Outcome {
        guard bytes.count > 0 else { return .transferred(0) }
        return withNonBlocking(fd) {
            while true {
                let count = CLinux.write(fd, bytes.baseAddress, bytes.count)
                if count >= 0 { return .transferred(count) }
                if errno == EINTR { continue }
                return errno == EAGAIN || errno == EWOULDBLOCK ? .wouldBlock : .failed(errno)
            }
        }
    }

    /// A socket needs no flag juggling: MSG_DONTWAIT makes one call non-blocking, and MSG_NOSIGNAL turns
    /// a vanished client into EPIPE rather than a SIGPIPE that would kill the agent.
    public static func send(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Outcome {
        guard bytes.count > 0 else { return .transferred(0) }
        while true {
            let count = CLinux.send(fd, bytes.baseAddress, bytes.count, Int32(MSG_DONTWAIT) | Int32(MSG_NOSIGNAL))
            if count >= 0 { return .transferred(count) }
            if errno == EINTR { continue }
            return errno == EAGAIN || errno == EWOULDBLOCK ? .wouldBlock : .failed(errno)
        }
    }

    public static func receive(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) -> Outcome {
        while true {
            let count = recv(fd, buffer.baseAddress, buffer.count, Int32(MSG_DONTWAIT))
            if count > 0 { return .transferred(count) }
            if count == 0 { return .endOfFile }
            if errno == EINTR { continue }
            return errno == EAGAIN || errno == EWOULDBLOCK ? .wouldBlock : .failed(errno)
        }
    }

    /// Closes `fd`; a descriptor is released even when close reports an error, so there is nothing to retry.
    public static func close(_ fd: Int32) { _ = CLinux.close(fd) }

    /// Whether a socket has bytes waiting to be read, without taking them (MSG_PEEK): what a server asks
    /// before it judges a connection idle.
    public static func hasBytesWaiting(_ fd: Int32) -> Bool {
        var byte: UInt8 = 0
        while true {
            let count = recv(fd, &byte, 1, Int32(MSG_DONTWAIT) | Int32(MSG_PEEK))
            if count >= 0 { return count > 0 }
            if errno != EINTR { return false }
        }
    }

    /// Whether `fd` is a socket, which `send` serves better than `write` (no SIGPIPE, no flag juggling):
    /// the console socket's connections, a TCP or user-channel transport, stdout under systemd's journal.
    public static func isSocket(_ fd: Int32) -> Bool {
        (try? Posix.status(of: fd))?.kind == .socket
    }

    private static func withNonBlocking(_ fd: Int32, _ body: () -> Outcome) -> Outcome {
        let flags = enb_fcntl(fd, F_GETFL, 0)
        guard flags >= 0 else { return .failed(errno) }
        if flags & O_NONBLOCK != 0 { return body() }
        _ = enb_fcntl(fd, F_SETFL, flags | O_NONBLOCK)
        let outcome = body()
        let saved = errno
        _ = enb_fcntl(fd, F_SETFL, flags)
        errno = saved
        return outcome
    }
}
