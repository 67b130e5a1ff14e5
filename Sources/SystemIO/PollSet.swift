import CLinux

/// What `poll(2)` is asked to watch for on a descriptor, and what it found.
public struct PollEvents: OptionSet, Hashable, Sendable {
    public let rawValue: Int16
    public init(rawValue: Int16) { self.rawValue = rawValue }

    public static let readable = PollEvents(rawValue: Int16(POLLIN))
    public static let writable = PollEvents(rawValue: Int16(POLLOUT))
    /// Reported whether asked for or not.
    public static let error = PollEvents(rawValue: Int16(POLLERR))
    public static let hangup = PollEvents(rawValue: Int16(POLLHUP))
    /// The descriptor is not open.
    public static let invalid = PollEvents(rawValue: Int16(POLLNVAL))
}

/// The descriptors of one `poll(2)`, kept between calls: a loop that runs for months polls without
/// allocating once its set has reached its size.
public struct PollSet {
    private var descriptors: [pollfd] = []

    public init() {}

    public var count: Int { descriptors.count }

    public mutating func removeAll() { descriptors.removeAll(keepingCapacity: true) }

    public mutating func append(_ fd: Int32, events: PollEvents) {
        descriptors.append(pollfd(fd: fd, events: events.rawValue, revents: 0))
    }

    /// What the last `poll` found on the descriptor at `index`.
    public func found(at index: Int) -> PollEvents { PollEvents(rawValue: descriptors[index].revents) }

    /// One poll(2): the number of descriptors with something to report, 0 on timeout. A negative timeout
    /// waits without one. EINTR, EAGAIN and ENOMEM come back as an error the caller may simply retry.
    public mutating func poll(timeoutMilliseconds: Int32) -> Result<Int, SystemError> {
        let count = descriptors.withUnsafeMutableBufferPointer {
            CLinux.poll($0.baseAddress, nfds_t($0.count), timeoutMilliseconds)
        }
        return count < 0 ? .failure(.last("poll")) : .success(Int(count))
    }
}
