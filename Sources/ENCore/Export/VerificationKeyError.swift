/// Why a configured public key was refused when loading it.
public enum VerificationKeyError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Not a PEM or DER SubjectPublicKeyInfo that libcrypto can read.
    case unreadable(String)
    case notEllipticCurve(String)
    /// An EC key on another curve (secp256k1, say): GAEN signatures are P-256 only, whatever a file claims.
    case wrongCurve(String)
    case duplicate(VerificationKeyID)

    public var description: String {
        switch self {
        case .unreadable(let reason): "not a readable public key: \(reason)"
        case .notEllipticCurve(let type): "public key is \(type), not an elliptic-curve key"
        case .wrongCurve(let curve): "public key is on curve \(curve); GAEN accepts only P-256 (prime256v1)"
        case .duplicate(let id): "two verification keys configured for \(id)"
        }
    }
}
