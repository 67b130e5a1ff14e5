/// What the loop observed about a watched descriptor.
///
/// Readiness is level-triggered and only a hint: the handler is called again on the next
/// iteration while the condition persists, and a read or write may still return EAGAIN, so watched
/// descriptors should be non-blocking.
public struct FDReadiness: OptionSet, Hashable, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let readable = FDReadiness(rawValue: 1 << 0)
    public static let writable = FDReadiness(rawValue: 1 << 1)
    /// An error is pending on the descriptor (POLLERR); the next read or write returns it.
    public static let error = FDReadiness(rawValue: 1 << 2)
    /// The peer hung up (POLLHUP): reads return any remaining data, then 0.
    public static let hangup = FDReadiness(rawValue: 1 << 3)
    /// The descriptor is not open (POLLNVAL): it was closed without being unwatched. The loop
    /// removes such a watch after reporting it once, since it can never become valid again.
    public static let invalid = FDReadiness(rawValue: 1 << 4)

    /// Conditions reported whatever the interest, because the handler must react to them.
    static let alwaysReported: FDReadiness = [.error, .hangup, .invalid]

    /// The conditions a watch with `interest` may be told about.
    init(deliverableFor interest: FDInterest) {
        self = Self.alwaysReported
        if interest.contains(.readable) { insert(.readable) }
        if interest.contains(.writable) { insert(.writable) }
    }
}
