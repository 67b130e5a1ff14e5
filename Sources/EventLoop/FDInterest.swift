/// What a watch wants to hear about a file descriptor.
///
/// An empty interest pauses the watch completely (the descriptor is left out of `poll`), so that
/// a hung-up peer cannot make the loop spin on a descriptor nobody is currently reading;
/// errors and hangups are reported again once some interest is restored.
public struct FDInterest: OptionSet, Hashable, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Data (or end of file, or a connection) is ready to be read.
    public static let readable = FDInterest(rawValue: 1 << 0)
    /// Writing will not block. Ask for it only while an output queue is non-empty: an idle
    /// descriptor is writable almost always and would wake the loop on every iteration.
    public static let writable = FDInterest(rawValue: 1 << 1)
}
