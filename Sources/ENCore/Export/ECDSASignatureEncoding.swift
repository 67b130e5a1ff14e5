import COpenSSL

/// Recognises the X9.62 DER encoding of an ECDSA signature: SEQUENCE { INTEGER r, INTEGER s }.
enum ECDSASignatureEncoding {
    /// True only for canonical DER: libcrypto parses it, consumes every byte, and re-encodes it to
    /// exactly the same bytes. A 64-byte raw r‖s, BER length forms, or trailing junk all fail.
    static func isStrictDER(_ signature: [UInt8]) -> Bool {
        guard !signature.isEmpty, signature.count <= 1024 else { return false }
        return signature.withUnsafeBufferPointer { input -> Bool in
            var cursor: UnsafePointer<UInt8>? = input.baseAddress
            guard let parsed = d2i_ECDSA_SIG(nil, &cursor, input.count) else {
                ERR_clear_error()
                return false
            }
            defer { ECDSA_SIG_free(parsed) }
            guard let base = input.baseAddress, cursor == base + input.count else { return false }
            guard i2d_ECDSA_SIG(parsed, nil) == Int32(input.count) else { return false }
            var encoded = [UInt8](repeating: 0, count: input.count)
            let written = encoded.withUnsafeMutableBufferPointer { out -> Int32 in
                var writeCursor: UnsafeMutablePointer<UInt8>? = out.baseAddress
                return i2d_ECDSA_SIG(parsed, &writeCursor)
            }
            return written == Int32(input.count) && encoded.elementsEqual(input)
        }
    }
}
