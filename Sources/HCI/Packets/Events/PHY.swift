/// A physical layer an advertisement travelled on, as extended reports name it.
///
/// Raw values the module has no name for are kept rather than rejected: newer specifications add
/// PHY variants, and a report is still worth reading when its PHY is unfamiliar.
public struct PHY: RawRepresentable, Hashable, Sendable {
    public let rawValue: UInt8

    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Only as a secondary PHY: there was no secondary channel (a legacy or primary-only advertisement).
    public static let none = PHY(rawValue: 0x00)
    public static let le1M = PHY(rawValue: 0x01)
    public static let le2M = PHY(rawValue: 0x02)
    public static let leCoded = PHY(rawValue: 0x03)
}
