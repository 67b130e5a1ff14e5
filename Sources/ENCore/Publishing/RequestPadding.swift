/// How requests to the health authority are padded (PUBLISH.md §6): with random base64 characters in the
/// `padding` member, up to a fixed size per kind of request, so that an observer of the care home's network
/// learns nothing from a request's length: not how many keys were shared, not how long the code or the
/// token was, not whether it was chaff. ENA pads every upload to about 5,000 bytes; the same idea is applied
/// to all three calls.
///
/// A body already longer than `targetBytes` (an unusually long certificate) is padded to the next multiple
/// of `stepBytes` above it, which still hides the number of keys within that step.
public struct RequestPadding: Equatable, Sendable {
    /// The size of every body of this kind, in bytes.
    public var targetBytes: Int
    public var stepBytes: Int

    public init(targetBytes: Int, stepBytes: Int) {
        precondition(targetBytes > 0 && stepBytes > 0, "padding sizes must be positive")
        self.targetBytes = targetBytes
        self.stepBytes = stepBytes
    }

    /// `/api/verify`: a code and the accepted test types (≈ 70 bytes unpadded).
    public static let verify = RequestPadding(targetBytes: 1_000, stepBytes: 1_000)
    /// `/api/certificate`: a token (a JWT of some 400–700 bytes) and a 44-byte MAC.
    public static let certificate = RequestPadding(targetBytes: 2_000, stepBytes: 1_000)
    /// `/v1/publish`: up to 30 keys (≈ 95 bytes each) and a certificate: about 4,000 bytes at most.
    public static let publish = RequestPadding(targetBytes: 5_000, stepBytes: 1_000)

    /// The size a body of `unpaddedBytes` (with an empty padding member) is padded to.
    public func paddedSize(unpaddedBytes: Int) -> Int {
        guard unpaddedBytes > targetBytes else { return targetBytes }
        let steps = (unpaddedBytes - targetBytes + stepBytes - 1) / stepBytes
        return targetBytes + steps * stepBytes
    }

    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// `count` random characters of the base64 alphabet: what a server expects padding to look like, and
    /// nothing a JSON string needs escaped.
    static func characters<G: RandomNumberGenerator>(_ count: Int, using generator: inout G) -> String {
        var bytes = [UInt8](repeating: 0, count: count)
        var bits: UInt64 = 0
        var available = 0
        for index in bytes.indices {
            if available < 6 {
                bits = generator.next()
                available = 64
            }
            bytes[index] = alphabet[Int(bits & 63)]
            bits >>= 6
            available -= 6
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `unpadded` — a JSON object whose last member is `"padding":""` — with the padding filled in to size.
    func pad<G: RandomNumberGenerator>(_ unpadded: String, using generator: inout G) throws(PublishingRequestError) -> String {
        let closing = "\"}"
        precondition(unpadded.hasSuffix("\"padding\":\"" + closing), "the padding member must come last and be empty")
        let unpaddedBytes = unpadded.utf8.count
        let size = paddedSize(unpaddedBytes: unpaddedBytes)
        guard size <= PublishingLimits.maxBodyBytes else {
            throw .bodyTooLarge(bytes: size, limit: PublishingLimits.maxBodyBytes)
        }
        return String(unpadded.dropLast(closing.count)) + Self.characters(size - unpaddedBytes, using: &generator)
            + closing
    }
}

/// Sizes the servers enforce.
public enum PublishingLimits {
    /// Both servers read at most this much of a request body (larger: 413 / unparsable_request).
    public static let maxBodyBytes = 64_000
}
