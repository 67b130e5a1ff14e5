/// One signing key of a key server and the name verifiers know it by (`verification_key_id` and
/// `verification_key_version`, e.g. "262" and "v1"). An export lists one SignatureInfo per signer
/// and carries one signature from each (several during a key rotation).
public struct ExportSigner: Sendable {
    public var key: SigningKey
    public var keyID: VerificationKeyID

    public init(key: SigningKey, keyID: VerificationKeyID) {
        self.key = key
        self.keyID = keyID
    }

    /// What export.bin and export.sig say about this signer; always ECDSA P-256 with SHA-256.
    public var signatureInfo: SignatureInfo {
        SignatureInfo(verificationKeyVersion: keyID.version, verificationKeyID: keyID.id,
                      signatureAlgorithm: SignatureInfo.ecdsaP256SHA256)
    }
}
