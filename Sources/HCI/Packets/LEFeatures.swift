/// The LE features a controller supports (Core Vol 6 Part B 4.6), from LE Read Local Supported Features.
///
/// Only the bits that change how enbeacon may talk to a controller have names.
public struct LEFeatures: OptionSet, Hashable, Sendable {
    public let rawValue: UInt64

    public init(rawValue: UInt64) { self.rawValue = rawValue }

    public static let encryption = LEFeatures(rawValue: 1 << 0)
    public static let llPrivacy = LEFeatures(rawValue: 1 << 6)
    public static let twoMegabitPHY = LEFeatures(rawValue: 1 << 8)
    public static let codedPHY = LEFeatures(rawValue: 1 << 11)
    public static let extendedAdvertising = LEFeatures(rawValue: 1 << 12)
}
