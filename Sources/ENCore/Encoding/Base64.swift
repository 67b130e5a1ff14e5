import COpenSSL

/// Standard base64 (RFC 4648, with padding), through libcrypto: the encoding the key server's publish
/// API uses for keys.
public enum Base64 {
    public static func encode(_ bytes: [UInt8]) -> String {
        guard !bytes.isEmpty else { return "" }
        var out = [UInt8](repeating: 0, count: (bytes.count + 2) / 3 * 4 + 1)
        let n = out.withUnsafeMutableBufferPointer { o in
            bytes.withUnsafeBufferPointer { EVP_EncodeBlock(o.baseAddress, $0.baseAddress, Int32(bytes.count)) }
        }
        return String(decoding: out.prefix(Int(n)), as: UTF8.self)
    }
}
