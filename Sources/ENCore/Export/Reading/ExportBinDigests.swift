import COpenSSL

/// What is computed over export.bin while it streams past: its SHA-256 (to notice a file that changes
/// between the verifying pass and the reading pass) and one ECDSA P-256 / SHA-256 verification per
/// signature whose key is configured.
final class ExportBinDigests {
    private let sha256: OpaquePointer
    /// Index of the signature in export.sig → its verification context.
    private var verifications: [Int: OpaquePointer] = [:]

    init(verifying candidates: [(signatureIndex: Int, key: VerificationKey)] = []) throws(ExportFileError) {
        guard let sha256 = EVP_MD_CTX_new() else { throw .read("libcrypto: EVP_MD_CTX_new failed") }
        self.sha256 = sha256
        check(EVP_DigestInit_ex(sha256, EVP_sha256(), nil), "EVP_DigestInit_ex(SHA-256)")
        for (index, key) in candidates {
            guard let context = EVP_MD_CTX_new() else { throw .read("libcrypto: EVP_MD_CTX_new failed") }
            verifications[index] = context
            check(EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, key.key), "EVP_DigestVerifyInit")
        }
    }

    deinit {
        EVP_MD_CTX_free(sha256)
        verifications.values.forEach { EVP_MD_CTX_free($0) }
    }

    func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        check(EVP_DigestUpdate(sha256, base, bytes.count), "EVP_DigestUpdate(SHA-256)")
        for context in verifications.values {
            check(EVP_DigestVerifyUpdate(context, base, bytes.count), "EVP_DigestVerifyUpdate")
        }
    }

    /// The SHA-256 of everything passed to `update`. Call once, at the end.
    func finishSHA256() -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        check(EVP_DigestFinal_ex(sha256, &digest, &length), "EVP_DigestFinal_ex(SHA-256)")
        return digest
    }

    /// Whether `signature` (already known to be DER) verifies over everything passed to `update`. Once per index.
    func verifies(signatureAt index: Int, _ signature: [UInt8]) -> Bool {
        guard let context = verifications[index] else { return false }
        defer { ERR_clear_error() }
        return EVP_DigestVerifyFinal(context, signature, signature.count) == 1
    }
}
