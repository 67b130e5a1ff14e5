/// The LE Meta subevents a controller may send, as set by LE Set Event Mask (Core Vol 4 Part E 7.8.1).
public struct LEEventMask: OptionSet, Hashable, Sendable {
    public let rawValue: UInt64

    public init(rawValue: UInt64) { self.rawValue = rawValue }

    public static let connectionComplete = LEEventMask(rawValue: 1 << 0)
    public static let advertisingReport = LEEventMask(rawValue: 1 << 1)
    public static let extendedAdvertisingReport = LEEventMask(rawValue: 1 << 12)

    /// What a controller uses after Reset: the first five LE subevents.
    public static let controllerDefault = LEEventMask(rawValue: 0x0000_0000_0000_001F)
}
