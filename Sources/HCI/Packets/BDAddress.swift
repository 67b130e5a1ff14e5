/// A 48-bit Bluetooth device address.
///
/// `rawValue` is the address as a number, so its most significant byte is the one printed first
/// (`AA` in `AA:BB:CC:DD:EE:FF`); on the wire HCI sends it least significant byte first, which is what
/// `littleEndianBytes` returns and `init(littleEndianBytes:)` accepts. Keeping the number rather than a
/// byte array makes the type a single word: free to copy, hash and compare.
public struct BDAddress: RawRepresentable, Hashable, Sendable, Comparable {
    public static let byteCount = 6
    static let mask: UInt64 = 0xFFFF_FFFF_FFFF

    public static let zero = BDAddress(rawValue: 0)

    public let rawValue: UInt64

    /// Keeps only the low 48 bits of `rawValue`.
    public init(rawValue: UInt64) {
        self.rawValue = rawValue & Self.mask
    }

    /// Nil unless `bytes` holds exactly six bytes, least significant first (wire order).
    public init?<C: Collection>(littleEndianBytes bytes: C) where C.Element == UInt8 {
        guard bytes.count == Self.byteCount else { return nil }
        var value: UInt64 = 0
        for (offset, byte) in bytes.enumerated() { value |= UInt64(byte) << (8 * offset) }
        self.init(rawValue: value)
    }

    /// The six bytes in wire order (least significant first).
    public var littleEndianBytes: [UInt8] {
        (0..<Self.byteCount).map { UInt8(truncatingIfNeeded: rawValue >> (8 * $0)) }
    }

    public static func < (a: BDAddress, b: BDAddress) -> Bool { a.rawValue < b.rawValue }
}

extension BDAddress: LosslessStringConvertible {
    private static let digits: [Character] = Array("0123456789ABCDEF")

    /// `AA:BB:CC:DD:EE:FF`, most significant byte first, upper case: the form BlueZ and phones print.
    public var description: String {
        var text = ""
        text.reserveCapacity(17)
        for index in (0..<Self.byteCount).reversed() {
            let byte = Int((rawValue >> (8 * UInt64(index))) & 0xFF)
            text.append(Self.digits[byte >> 4])
            text.append(Self.digits[byte & 0x0F])
            if index > 0 { text.append(":") }
        }
        return text
    }

    /// Parses `AA:BB:CC:DD:EE:FF` in either case; nil for anything else.
    public init?(_ description: String) {
        let parts = description.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == Self.byteCount else { return nil }
        var value: UInt64 = 0
        for part in parts {
            // UInt8(_:radix:) alone would also take "+A"; only two hex digits make a byte here.
            guard part.utf8.count == 2, part.utf8.allSatisfy({ $0.isHexDigit }), let byte = UInt8(part, radix: 16) else {
                return nil
            }
            value = value << 8 | UInt64(byte)
        }
        self.init(rawValue: value)
    }
}

extension BDAddress {
    /// The two most significant bits of a random address say what kind it is; 00 marks a
    /// non-resolvable private address (Core Vol 6 Part B 1.3.2.2).
    static let randomKindShift: UInt64 = 46
    static let randomBitsMask: UInt64 = (1 << 46) - 1

    /// A fresh non-resolvable private address: the kind GAEN requires, because it must rotate with
    /// every RPI and must not let anyone link two of them (no IRK, nothing to resolve).
    ///
    /// Redraws when the 46 random bits come out all zero or all one, which the specification forbids.
    public static func nonResolvablePrivate(using generator: inout some RandomNumberGenerator) -> BDAddress {
        while true {
            let bits = generator.next() & randomBitsMask
            if bits != 0 && bits != randomBitsMask { return BDAddress(rawValue: bits) }
        }
    }

    /// The non-resolvable private address made of 46 of `bits` (the top two bits of an NRPA are 00); nil in
    /// the one-in-2^45 case that they are all zero or all one, which the specification forbids.
    public static func nonResolvablePrivate(bits: UInt64) -> BDAddress? {
        let random = bits & randomBitsMask
        return random != 0 && random != randomBitsMask ? BDAddress(rawValue: random) : nil
    }

    /// True when this, read as a random address, is a valid non-resolvable private address.
    public var isNonResolvablePrivate: Bool {
        let bits = rawValue & Self.randomBitsMask
        return rawValue >> Self.randomKindShift == 0b00 && bits != 0 && bits != Self.randomBitsMask
    }

    /// True when this, read as a random address, is a static random address (top bits 11).
    public var isStaticRandom: Bool {
        let bits = rawValue & Self.randomBitsMask
        return rawValue >> Self.randomKindShift == 0b11 && bits != 0 && bits != Self.randomBitsMask
    }
}

extension UInt8 {
    /// True for the ASCII codes of 0–9, a–f and A–F.
    fileprivate var isHexDigit: Bool {
        switch self {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"), UInt8(ascii: "A")...UInt8(ascii: "F"):
            true
        default: false
        }
    }
}
