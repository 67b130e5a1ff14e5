/// When a token or certificate of the verification server lapses, as its own `exp` claim says (PUBLISH.md
/// §2: both are JWTs). The signature is not checked: the servers check it; the badge only wants to know
/// until when it may use what it holds, and assumes the documented lifetime when the claim is unreadable.
public enum JWTExpiry {
    /// The `exp` claim in Unix seconds, or nil when `jwt` is not a JWT with a numeric `exp`.
    public static func unixSeconds(of jwt: String) -> Int64? {
        let parts = jwt.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3, let claims = Base64URL.decode(String(decoding: parts[1], as: UTF8.self)),
              case .object(let members)? = try? JSONValue.parse(utf8: claims),
              case .number(let exp)? = members["exp"], exp.isFinite, exp > 0, exp < 1e12 else { return nil }
        return Int64(exp)
    }
}
