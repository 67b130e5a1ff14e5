/// Names one public key of a key server: `verification_key_id` (often a country's MCC, "262")
/// and `verification_key_version` ("v1"). Google writes the pair as "262-v1".
public struct VerificationKeyID: Hashable, Sendable, CustomStringConvertible {
    public var id: String
    public var version: String

    public init(id: String, version: String) {
        self.id = id
        self.version = version
    }

    public var description: String { "\(id)-\(version)" }
}
