/// The primary advertising channels to use; at least one must be set and bits above 2 are reserved.
public struct AdvertisingChannelMap: OptionSet, Hashable, Sendable {
    public let rawValue: UInt8

    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let channel37 = AdvertisingChannelMap(rawValue: 1 << 0)
    public static let channel38 = AdvertisingChannelMap(rawValue: 1 << 1)
    public static let channel39 = AdvertisingChannelMap(rawValue: 1 << 2)
    public static let all: AdvertisingChannelMap = [.channel37, .channel38, .channel39]

    /// Non-empty and without reserved bits.
    public var isValid: Bool { rawValue != 0 && rawValue & ~Self.all.rawValue == 0 }
}
