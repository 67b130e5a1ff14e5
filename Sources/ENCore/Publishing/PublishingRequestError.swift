/// Why the badge cannot build a request to the health authority. Each is a fault of the badge's own state or
/// configuration, found before anything is sent, so nothing leaves the badge.
public enum PublishingRequestError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No keys of complete days to share.
    case noKeys
    /// More keys than the key server takes in one publish.
    case tooManyKeys(count: Int, limit: Int)
    /// A key the key server would drop: `index` in the upload, and why.
    case invalidKey(index: Int, reason: String)
    /// Keys covering the same intervals (other than up to three sharing a start), which the key server refuses.
    case overlappingKeys
    /// The HMAC secret is shorter than the 16 bytes PUBLISH.md requires.
    case secretTooShort(bytes: Int)
    /// A text member is empty or holds characters a request of this API never carries.
    case unsupportedText(member: String, reason: String)
    /// The body would exceed the 64,000 bytes the servers read.
    case bodyTooLarge(bytes: Int, limit: Int)
    /// libcrypto could not compute the HMAC (a broken installation, not bad input).
    case libcrypto(String)

    public var description: String {
        switch self {
        case .noKeys:
            "there are no keys of complete days to share yet"
        case .tooManyKeys(let count, let limit):
            "\(count) keys to share, but the key server takes at most \(limit)"
        case .invalidKey(let index, let reason):
            "key \(index) cannot be shared: \(reason)"
        case .overlappingKeys:
            "the keys to share cover the same time twice, which the key server refuses"
        case .secretTooShort(let bytes):
            "the HMAC secret has \(bytes) bytes, at least 16 are needed"
        case .unsupportedText(let member, let reason):
            "\(member) \(reason)"
        case .bodyTooLarge(let bytes, let limit):
            "the request would be \(bytes) bytes, the servers read at most \(limit)"
        case .libcrypto(let reason):
            reason
        }
    }
}
