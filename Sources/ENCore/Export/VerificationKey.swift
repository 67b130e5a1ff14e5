import COpenSSL

/// A key server's public key, loaded from a SubjectPublicKeyInfo and guaranteed to be P-256.
///
/// The curve is checked when the key is loaded, not when a file is verified, so a verifier can
/// never hold a key on another curve: a secp256k1 key (which some national apps shipped) is refused
/// even though the export's algorithm OID claims P-256.
///
/// `@unchecked Sendable`: the EVP_PKEY is never modified after loading, and OpenSSL 3 documents
/// read-only use of one EVP_PKEY from several threads as safe.
public final class VerificationKey: @unchecked Sendable {
    /// Internal rather than private: the verifier (Export/Reading) feeds it piece by piece.
    let key: OpaquePointer

    /// A PEM "PUBLIC KEY" block (SubjectPublicKeyInfo), the form key servers publish.
    public convenience init(pem: String) throws(VerificationKeyError) {
        let bytes = Array(pem.utf8)
        let loaded: OpaquePointer? = bytes.withUnsafeBytes { raw in
            guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else { return nil }
            defer { BIO_free(bio) }
            return PEM_read_bio_PUBKEY(bio, nil, nil, nil)
        }
        guard let loaded else { throw .unreadable(OpenSSLErrors.drain()) }
        try self.init(checking: loaded)
    }

    /// A DER SubjectPublicKeyInfo (what a base64 key in an app's configuration decodes to).
    public convenience init(subjectPublicKeyInfo der: [UInt8]) throws(VerificationKeyError) {
        let loaded: OpaquePointer? = der.withUnsafeBufferPointer { input in
            var cursor: UnsafePointer<UInt8>? = input.baseAddress
            let key = d2i_PUBKEY(nil, &cursor, input.count)
            // Trailing bytes after the structure mean it is not the key we were given.
            if let key, cursor != input.baseAddress.map({ $0 + input.count }) {
                EVP_PKEY_free(key)
                return nil
            }
            return key
        }
        guard let loaded else { throw .unreadable(OpenSSLErrors.drain()) }
        try self.init(checking: loaded)
    }

    /// Takes ownership of `key`, freeing it if it is not a P-256 key.
    private init(checking key: OpaquePointer) throws(VerificationKeyError) {
        guard EVP_PKEY_is_a(key, "EC") == 1 else {
            let type = EVP_PKEY_get0_type_name(key).map { String(cString: $0) } ?? "unknown"
            EVP_PKEY_free(key)
            throw .notEllipticCurve(type)
        }
        var name = [CChar](repeating: 0, count: 80)
        var length = 0
        let named = EVP_PKEY_get_group_name(key, &name, name.count, &length) == 1
        let curve = named ? String(decoding: name.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
                          : "with explicit parameters"
        ERR_clear_error()
        guard curve == "prime256v1" || curve == "P-256" else {
            EVP_PKEY_free(key)
            throw .wrongCurve(curve)
        }
        self.key = key
    }

    deinit { EVP_PKEY_free(key) }
}
