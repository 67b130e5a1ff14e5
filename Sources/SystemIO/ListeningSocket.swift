import CLinux

/// Taking the next connection from a listening socket (the console's unix socket, the metrics endpoint).
public enum ListeningSocket {
    public enum Accepted: Equatable, Sendable {
        /// A new connection, non-blocking and close-on-exec.
        case connection(Int32)
        /// Nothing is waiting (or the one that was gave up first).
        case noneWaiting
        /// The process or the system is out of descriptors or memory: the connection stays queued, and the
        /// listener stays readable, so a server must stop watching it for a while or it would spin.
        case outOfDescriptors
    }

    public static func accept(_ listener: Int32) -> Accepted {
        while true {
            // accept4 is not in Swift's Glibc module; the flags are set right after instead (the loop is
            // single-threaded and never forks, so no child can inherit the descriptor in between).
            let fd = CLinux.accept(listener, nil, nil)
            if fd >= 0 {
                _ = enb_fcntl(fd, F_SETFD, FD_CLOEXEC)
                _ = enb_fcntl(fd, F_SETFL, enb_fcntl(fd, F_GETFL, 0) | O_NONBLOCK)
                return .connection(fd)
            }
            switch errno {
            case EINTR, ECONNABORTED: continue
            case EMFILE, ENFILE, ENOBUFS, ENOMEM: return .outOfDescriptors
            default: return .noneWaiting
            }
        }
    }
}
