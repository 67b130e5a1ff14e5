/// Why a key server's private key could not be made, loaded or used.
public enum SigningKeyError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Not a PEM private key libcrypto can read (or it is encrypted).
    case unreadable(String)
    /// Readable, but not a P-256 key: GAEN signatures are ECDSA P-256 only.
    case notP256(VerificationKeyError)
    case libcrypto(String)

    public var description: String {
        switch self {
        case .unreadable(let reason): "not a readable PEM private key: \(reason)"
        case .notP256(let reason): "signing key refused: \(reason)"
        case .libcrypto(let reason): "libcrypto failed: \(reason)"
        }
    }
}
