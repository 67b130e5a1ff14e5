/// The properties of an advertisement in an extended report (LE Extended Advertising Report, Event_Type).
///
/// A bit field rather than an enumeration: controllers combine the bits freely (Bumble reports a
/// legacy ADV_NONCONN_IND as plain 0x0001 without the legacy bit), and no combination is an error.
public struct ExtendedAdvertisingEventType: RawRepresentable, Hashable, Sendable {
    public let rawValue: UInt16

    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// Whether the advertising data arrived whole or the controller cut it short.
    public enum DataStatus: UInt8, Hashable, Sendable {
        case complete = 0
        case incompleteMoreToCome = 1
        case incompleteTruncated = 2
        case reserved = 3
    }

    public var isConnectable: Bool { rawValue & 0x0001 != 0 }
    public var isScannable: Bool { rawValue & 0x0002 != 0 }
    public var isDirected: Bool { rawValue & 0x0004 != 0 }
    public var isScanResponse: Bool { rawValue & 0x0008 != 0 }
    public var isLegacy: Bool { rawValue & 0x0010 != 0 }

    public var dataStatus: DataStatus {
        DataStatus(rawValue: UInt8((rawValue >> 5) & 0x3)) ?? .reserved
    }

    /// The extended event type a controller reports for a legacy PDU (Core Vol 4 Part E 7.7.65.13).
    public static let legacyNonConnectable = ExtendedAdvertisingEventType(rawValue: 0x0010)
    public static let legacyConnectableScannable = ExtendedAdvertisingEventType(rawValue: 0x0013)
    public static let legacyScannable = ExtendedAdvertisingEventType(rawValue: 0x0012)
}
