/// The public keys this device trusts, each under the (key id, version) a server names it by:
/// what `ExportFile.verification(with:)` checks a file against.
public struct VerificationKeyring: Sendable {
    /// Readable inside the module: the verifier (Export/Reading) looks keys up.
    private(set) var keys: [VerificationKeyID: VerificationKey] = [:]

    public init() {}

    public var keyIDs: [VerificationKeyID] {
        keys.keys.sorted { ($0.id, $0.version) < ($1.id, $1.version) }
    }

    public mutating func add(_ key: VerificationKey, for id: VerificationKeyID) throws(VerificationKeyError) {
        guard keys[id] == nil else { throw .duplicate(id) }
        keys[id] = key
    }

    public mutating func add(pem: String, for id: VerificationKeyID) throws(VerificationKeyError) {
        try add(VerificationKey(pem: pem), for: id)
    }
}
