import COpenSSL

/// A key server's ECDSA P-256 private key: what signs export files. The counterpart of `VerificationKey`,
/// for the demo's key server, the key-sync tests and the benchmarks.
///
/// Only P-256 keys are accepted (the curve is checked through `VerificationKey`, so signer and verifier
/// agree on what P-256 means). `@unchecked Sendable`: the EVP_PKEY is never modified after creation, and
/// OpenSSL 3 documents concurrent read-only use of one EVP_PKEY as safe.
public final class SigningKey: @unchecked Sendable {
    let key: OpaquePointer

    /// Takes ownership of `key`, freeing it if it is not a P-256 key.
    private init(checking key: OpaquePointer) throws(SigningKeyError) {
        self.key = key
        // The verifier's curve check is the one that matters, so use it rather than a second copy.
        do {
            _ = try VerificationKey(subjectPublicKeyInfo: publicKeyDER)
        } catch {
            throw .notP256(error)
        }
    }

    deinit { EVP_PKEY_free(key) }

    /// A fresh key from libcrypto's default random generator.
    public static func generateP256() throws(SigningKeyError) -> SigningKey {
        guard let context = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else {
            throw .libcrypto("EVP_PKEY_CTX_new_from_name(EC): \(OpenSSLErrors.drain())")
        }
        defer { EVP_PKEY_CTX_free(context) }
        var generated: OpaquePointer?
        guard EVP_PKEY_keygen_init(context) == 1, EVP_PKEY_CTX_set_group_name(context, "P-256") == 1,
              EVP_PKEY_generate(context, &generated) == 1, let generated
        else { throw .libcrypto("P-256 key generation: \(OpenSSLErrors.drain())") }
        return try SigningKey(checking: generated)
    }

    /// A PEM private key: PKCS#8 ("PRIVATE KEY") or SEC 1 ("EC PRIVATE KEY"), unencrypted.
    public convenience init(pem: String) throws(SigningKeyError) {
        let bytes = Array(pem.utf8)
        let loaded: OpaquePointer? = bytes.withUnsafeBytes { raw in
            guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else { return nil }
            defer { BIO_free(bio) }
            // No passphrase callback: an encrypted key fails here instead of prompting on the terminal.
            return PEM_read_bio_PrivateKey(bio, nil, { _, _, _, _ in 0 }, nil)
        }
        guard let loaded else { throw .unreadable(OpenSSLErrors.drain()) }
        try self.init(checking: loaded)
    }

    /// The private key as unencrypted PKCS#8 PEM, for a demo key server that must persist it.
    public var privateKeyPEM: String {
        pem { bio in PEM_write_bio_PrivateKey(bio, key, nil, nil, 0, nil, nil) }
    }

    /// The public key as a PEM "PUBLIC KEY" block (SubjectPublicKeyInfo): what a verifier is configured with.
    public var publicKeyPEM: String {
        pem { bio in PEM_write_bio_PUBKEY(bio, key) }
    }

    /// The public key as DER SubjectPublicKeyInfo.
    public var publicKeyDER: [UInt8] {
        let length = i2d_PUBKEY(key, nil)
        guard length > 0 else { return [] }
        var der = [UInt8](repeating: 0, count: Int(length))
        der.withUnsafeMutableBufferPointer { out in
            var cursor = out.baseAddress
            _ = i2d_PUBKEY(key, &cursor)
        }
        return der
    }

    /// The public half, ready for a `VerificationKeyring`.
    public func verificationKey() throws(VerificationKeyError) -> VerificationKey {
        try VerificationKey(subjectPublicKeyInfo: publicKeyDER)
    }

    /// Writes through a memory BIO and returns what was written. Writing a valid key to memory fails
    /// only when allocation fails, which the runtime would not survive either.
    private func pem(_ write: (OpaquePointer) -> Int32) -> String {
        guard let bio = BIO_new(BIO_s_mem()) else { fatalError("libcrypto: BIO_new failed") }
        defer { BIO_free(bio) }
        check(write(bio), "PEM write")
        var text: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 512)
        while true {
            let n = BIO_read(bio, &chunk, Int32(chunk.count))
            if n <= 0 { break }
            text += chunk.prefix(Int(n))
        }
        return String(decoding: text, as: UTF8.self)
    }
}
