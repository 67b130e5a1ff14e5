/// Sixteen bytes held inline (two words, no heap): the shape of a TEK, an RPIK/AEMK and an RPI.
///
/// Stored in memory order, so `withUnsafeBytes` hands OpenSSL the bytes exactly as they travel
/// over the air or sit in an export file; equality and hashing cost two word compares.
public struct Bytes16: Hashable, Sendable {
    @usableFromInline var low: UInt64
    @usableFromInline var high: UInt64

    public static let zero = Bytes16(low: 0, high: 0)

    @inlinable init(low: UInt64, high: UInt64) {
        self.low = low
        self.high = high
    }

    /// Reads sixteen bytes from `raw` (which must hold at least that many) without copying through an array.
    @inlinable public init(loading raw: UnsafeRawBufferPointer, at offset: Int = 0) {
        precondition(offset >= 0 && raw.count - offset >= 16, "Bytes16 needs 16 bytes")
        low = raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
        high = raw.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self)
    }

    /// Fails unless `bytes` holds exactly sixteen bytes.
    public init?<C: Collection>(_ bytes: C) where C.Element == UInt8 {
        guard bytes.count == 16 else { return nil }
        self = .zero
        withUnsafeMutableBytes { dst in
            for (i, b) in bytes.enumerated() { dst[i] = b }
        }
    }

    public init?(hex: String) {
        guard let bytes = Hex.decode(hex), let value = Bytes16(bytes) else { return nil }
        self = value
    }

    // Typed throws, not rethrows: Embedded Swift has no untyped `any Error` to rethrow.
    @inlinable public func withUnsafeBytes<R, E: Error>(
        _ body: (UnsafeRawBufferPointer) throws(E) -> R
    ) throws(E) -> R {
        var copy = self
        return try Swift.withUnsafeBytes(of: &copy) { (raw) throws(E) in try body(raw) }
    }

    @inlinable public mutating func withUnsafeMutableBytes<R, E: Error>(
        _ body: (UnsafeMutableRawBufferPointer) throws(E) -> R
    ) throws(E) -> R {
        try Swift.withUnsafeMutableBytes(of: &self) { (raw) throws(E) in try body(raw) }
    }

    public var bytes: [UInt8] { withUnsafeBytes { Array($0) } }
    public var hex: String { Hex.encode(bytes) }

    /// The first two bytes as a big-endian number: the bucket of a 65,536-entry prefix index.
    @inlinable public var prefix16: UInt16 {
        withUnsafeBytes { UInt16($0[0]) << 8 | UInt16($0[1]) }
    }
}

extension Bytes16: CustomStringConvertible {
    public var description: String { hex }
}
