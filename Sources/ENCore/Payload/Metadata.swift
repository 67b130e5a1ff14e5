/// The four metadata bytes carried (encrypted) in every GAEN advertisement.
///
/// Byte 0 is the version: bits 7:6 major (1), bits 5:4 minor, and from minor 1 on bits 3:2 the sender's
/// calibration confidence (bits 1:0 reserved) — 0x40 is v1.0, 0x50…0x5C v1.1 (Google's `BluetoothMetadata`).
/// Byte 1 is the transmit power in dBm as a signed byte, bytes 2–3 reserved. Receivers need the TX power to
/// turn RSSI into attenuation, and the confidence to know how far to trust it.
public struct Metadata: Hashable, Sendable {
    public static let version10: UInt8 = 0x40
    public static let version11: UInt8 = 0x50

    public var version: UInt8
    public var txPower: Int8
    public var reserved: UInt16

    /// Any version byte, v1.0 unless told: the official test vectors encrypt `40 08 00 00`.
    public init(version: UInt8 = Metadata.version10, txPower: Int8, reserved: UInt16 = 0) {
        self.version = version
        self.txPower = txPower
        self.reserved = reserved
    }

    /// v1.1, as the badge broadcasts it: the TX power and how well it is known.
    public init(txPower: Int8, calibrationConfidence: CalibrationConfidence) {
        self.init(version: Self.version11 | UInt8(calibrationConfidence.rawValue) << 2, txPower: txPower)
    }

    public init(_ bytes: AssociatedEncryptedMetadata) {
        let b = bytes.bytes
        self.init(version: b[0], txPower: Int8(bitPattern: b[1]), reserved: UInt16(b[2]) << 8 | UInt16(b[3]))
    }

    /// The plaintext block that AES-CTR encrypts into the AEM.
    public var plaintext: AssociatedEncryptedMetadata {
        AssociatedEncryptedMetadata([version, UInt8(bitPattern: txPower), UInt8(reserved >> 8), UInt8(reserved & 0xFF)])!
    }

    /// Major version (bits 7:6); only major version 1 is defined.
    public var majorVersion: UInt8 { version >> 6 }

    /// Minor version (bits 5:4): 0 for v1.0, 1 for v1.1.
    public var minorVersion: UInt8 { version >> 4 & 0b11 }

    /// Bits 3:2 from v1.1 on; v1.0 reserved them (sent as zero), so its senders read as `.lowest`, as Google
    /// reads them.
    public var calibrationConfidence: CalibrationConfidence {
        guard minorVersion >= 1 else { return .lowest }
        return CalibrationConfidence(rawValue: Int(version >> 2 & 0b11)) ?? .lowest
    }
}

/// Four bytes: the Associated Encrypted Metadata as broadcast, or the metadata plaintext.
public struct AssociatedEncryptedMetadata: Hashable, Sendable, CustomStringConvertible {
    /// The four bytes in transmission order, packed into one word (memory order): for compact storage.
    public var word: UInt32

    @inlinable public init(word: UInt32) { self.word = word }

    public init?<C: Collection>(_ bytes: C) where C.Element == UInt8 {
        guard bytes.count == 4 else { return nil }
        var w: UInt32 = 0
        Swift.withUnsafeMutableBytes(of: &w) { dst in
            for (i, b) in bytes.enumerated() { dst[i] = b }
        }
        word = w
    }

    public init?(hex: String) {
        guard let b = Hex.decode(hex) else { return nil }
        self.init(b)
    }

    public var bytes: [UInt8] { withUnsafeBytes(of: word) { Array($0) } }
    public var hex: String { Hex.encode(bytes) }
    public var description: String { hex }
}
