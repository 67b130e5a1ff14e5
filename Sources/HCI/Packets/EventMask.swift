/// The events a controller may send, as set by Set Event Mask (Core Vol 4 Part E 7.3.1).
///
/// Only the bits enbeacon cares about have names; `rawValue` carries the rest untouched.
public struct EventMask: OptionSet, Hashable, Sendable {
    public let rawValue: UInt64

    public init(rawValue: UInt64) { self.rawValue = rawValue }

    public static let hardwareError = EventMask(rawValue: 1 << 15)
    public static let dataBufferOverflow = EventMask(rawValue: 1 << 25)
    /// Without this bit no LE event (advertising reports included) reaches the host.
    public static let leMeta = EventMask(rawValue: 1 << 61)

    /// What a controller uses after Reset: the BR/EDR events, no LE Meta.
    public static let controllerDefault = EventMask(rawValue: 0x0000_1FFF_FFFF_FFFF)
}
