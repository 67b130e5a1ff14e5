/// The keys of one upload and the secret that binds them to one verification certificate: the certificate
/// request carries their `ekeyhmac`, the publish request the keys and the secret. Both requests are built from
/// one `KeyUpload`, so the MAC covers exactly the keys published.
///
/// Checked when made against the key server's rules (PUBLISH.md §3), so that a refusal is found before
/// anything leaves the badge: 1…`maxKeys` keys, each with a rolling period of 1…144 and a transmission risk
/// of 0…8, no key repeated, and no two covering the same interval unless they share a start (at most three).
public struct KeyUpload: Sendable, CustomStringConvertible {
    /// MAX_KEYS_ON_PUBLISH of the reference key server.
    public static let defaultMaxKeys = 30
    /// ENA's secret size; PUBLISH.md asks for at least 16 bytes.
    public static let secretBytes = 32
    public static let minimumSecretBytes = 16
    /// How many keys may share a rolling start (a day's key ended early and a new one began).
    public static let maxKeysSharingAStart = 3

    /// In the order given; the MAC does not depend on it.
    public let keys: [PublishedKey]
    /// The HMAC secret: sent to the key server with the keys, never logged.
    public let secret: [UInt8]
    /// `ekeyhmac` of the keys under the secret, for the certificate request.
    public let ekeyhmac: String

    public init(keys: [PublishedKey], secret: [UInt8], maxKeys: Int = defaultMaxKeys) throws(PublishingRequestError) {
        guard !keys.isEmpty else { throw .noKeys }
        guard keys.count <= maxKeys else { throw .tooManyKeys(count: keys.count, limit: maxKeys) }
        guard secret.count >= Self.minimumSecretBytes else { throw .secretTooShort(bytes: secret.count) }
        for (index, key) in keys.enumerated() {
            guard PublishedKey.rollingPeriodRange.contains(key.rollingPeriod) else {
                throw .invalidKey(index: index, reason: "rolling period \(key.rollingPeriod) is outside 1…144")
            }
            guard PublishedKey.transmissionRiskRange.contains(key.transmissionRisk) else {
                throw .invalidKey(index: index, reason: "transmission risk \(key.transmissionRisk) is outside 0…8")
            }
        }
        guard Set(keys.map { $0.keyData }).count == keys.count else {
            throw .invalidKey(index: Self.firstRepeat(keys), reason: "the same key is listed twice")
        }
        try Self.checkOverlaps(keys)
        self.keys = keys
        self.secret = secret
        do {
            ekeyhmac = try ExposureKeyHMAC.base64(keys, secret: secret)
        } catch {
            throw .libcrypto(error.description)
        }
    }

    /// With a fresh secret from `generator` (the kernel CSPRNG in production).
    public init<G: RandomNumberGenerator>(keys: [PublishedKey], maxKeys: Int = defaultMaxKeys,
                                          using generator: inout G) throws(PublishingRequestError) {
        var secret: [UInt8] = []
        secret.reserveCapacity(Self.secretBytes)
        while secret.count < Self.secretBytes {
            withUnsafeBytes(of: generator.next()) { secret += $0 }
        }
        try self.init(keys: keys, secret: secret, maxKeys: maxKeys)
    }

    public var description: String { "KeyUpload(\(keys.count) keys, secret redacted)" }

    private static func firstRepeat(_ keys: [PublishedKey]) -> Int {
        var seen = Set<Bytes16>()
        return keys.firstIndex { !seen.insert($0.keyData).inserted } ?? 0
    }

    /// Sorted by start, each group of keys sharing a start must begin at or after the end of every earlier key.
    private static func checkOverlaps(_ keys: [PublishedKey]) throws(PublishingRequestError) {
        var byStart: [UInt32: [PublishedKey]] = [:]
        for key in keys { byStart[key.rollingStartNumber.value, default: []].append(key) }
        var previousEnd: UInt64?
        for start in byStart.keys.sorted() {
            let group = byStart[start]!
            guard group.count <= maxKeysSharingAStart else { throw .overlappingKeys }
            if let previousEnd, UInt64(start) < previousEnd { throw .overlappingKeys }
            previousEnd = group.map { $0.rollingEnd }.max()
        }
    }
}
