import COpenSSL

/// The stable name of an exposure: a hash of the diagnosis key and its rolling start (its day).
///
/// The same key in a file seen again, in a later file, or in a revision always gives the same name, so an
/// exposure is recorded once however often its key is downloaded, and a revocation finds what to remove.
/// Being a one-way hash, it can be stored, logged and shown without revealing the key.
public struct ExposureID: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// 32 lowercase hex digits: the first 16 bytes of SHA-256.
    public let hex: String

    public init?(hex: String) {
        guard hex.count == 32, hex.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else {
            return nil
        }
        self.hex = hex
    }

    public init(key: TemporaryExposureKey) {
        // Domain-separated, so the name can never collide with another use of a hash of the same key.
        var input = Array("enbeacon exposure v1".utf8)
        input += key.keyData.bytes
        withUnsafeBytes(of: key.rollingStart.value.littleEndian) { input += $0 }
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        let status = EVP_Digest(input, input.count, &digest, &length, EVP_sha256(), nil)
        precondition(status == 1, "SHA-256 unavailable in libcrypto")
        hex = Hex.encode(Array(digest.prefix(16)))
    }

    /// The first 8 digits: enough to tell exposures apart in a log line.
    public var short: String { String(hex.prefix(8)) }

    public var description: String { hex }

    public static func < (a: Self, b: Self) -> Bool { a.hex < b.hex }
}
