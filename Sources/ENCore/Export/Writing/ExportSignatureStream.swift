import COpenSSL

/// ECDSA P-256 / SHA-256 signatures of export.bin by several signers at once, fed as the file is written,
/// so a 60 MB export is signed without being held. Each signer has its own digest context; all see the
/// same bytes.
final class ExportSignatureStream {
    private let signers: [ExportSigner]
    private let contexts: [OpaquePointer]

    init(signers: [ExportSigner]) throws(ExportWriteError) {
        var contexts: [OpaquePointer] = []
        for signer in signers {
            guard let context = EVP_MD_CTX_new() else {
                contexts.forEach { EVP_MD_CTX_free($0) }
                throw .libcrypto("EVP_MD_CTX_new: \(OpenSSLErrors.drain())")
            }
            contexts.append(context)
            guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, signer.key.key) == 1 else {
                contexts.forEach { EVP_MD_CTX_free($0) }
                throw .libcrypto("EVP_DigestSignInit: \(OpenSSLErrors.drain())")
            }
        }
        self.signers = signers
        self.contexts = contexts
    }

    deinit { contexts.forEach { EVP_MD_CTX_free($0) } }

    /// Hashes the next piece of export.bin into every signature. An initialised SHA-256 update cannot
    /// fail for valid arguments, so a failure is a broken library, not bad input.
    func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        for context in contexts {
            check(EVP_DigestSignUpdate(context, base, bytes.count), "EVP_DigestSignUpdate")
        }
    }

    /// The DER signatures, one per signer in the order given; export.sig's entries, batch fields filled in.
    func finish(batchNum: Int32, batchSize: Int32) throws(ExportWriteError) -> [TEKSignature] {
        var signatures: [TEKSignature] = []
        for (signer, context) in zip(signers, contexts) {
            var length = 0
            guard EVP_DigestSignFinal(context, nil, &length) == 1 else {
                throw .libcrypto("EVP_DigestSignFinal: \(OpenSSLErrors.drain())")
            }
            var signature = [UInt8](repeating: 0, count: length)
            guard EVP_DigestSignFinal(context, &signature, &length) == 1 else {
                throw .libcrypto("EVP_DigestSignFinal: \(OpenSSLErrors.drain())")
            }
            signatures.append(TEKSignature(signatureInfo: signer.signatureInfo, batchNum: batchNum,
                                           batchSize: batchSize, signature: Array(signature.prefix(length))))
        }
        return signatures
    }
}
