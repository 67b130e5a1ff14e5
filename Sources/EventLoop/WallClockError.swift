import SystemIO

/// Why the system clock could not be set.
public struct WallClockError: Error, Equatable, CustomStringConvertible {
    public let errno: Int32

    public init(errno: Int32) { self.errno = errno }

    public var description: String {
        switch errno {
        case Errno.notPermitted:
            "setting the system clock needs CAP_SYS_TIME (Board/enbeacon.service grants it; or run as root)"
        case Errno.invalidArgument:
            "the system refused that time"
        default:
            "cannot set the system clock (errno \(errno))"
        }
    }
}
