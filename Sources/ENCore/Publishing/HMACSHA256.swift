import COpenSSL

/// HMAC-SHA256 in one call through libcrypto (EVP_Q_mac, OpenSSL 3): the MAC that binds a verification
/// certificate to the keys it was asked for. Called a few times per upload, so there is nothing to gain
/// from the saved SHA-256 states `KeySchedule` keeps for its millions of HKDFs.
enum HMACSHA256 {
    static let length = 32

    static func mac(key: [UInt8], message: [UInt8]) throws(CryptoError) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: length)
        var written = 0
        let result = out.withUnsafeMutableBufferPointer { o in
            key.withUnsafeBufferPointer { k in
                message.withUnsafeBufferPointer { m in
                    EVP_Q_mac(nil, "HMAC", nil, "SHA256", nil, k.baseAddress, k.count, m.baseAddress, m.count,
                              o.baseAddress, o.count, &written)
                }
            }
        }
        guard result != nil, written == length else { throw .openSSL("EVP_Q_mac(HMAC-SHA256)") }
        return out
    }
}
