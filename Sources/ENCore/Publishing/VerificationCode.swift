/// A verification code as staff typed it, normalised the way the verification server matches codes: spaces
/// removed and letters lower-cased (long codes are 16 of `[a-z0-9]`, short ones 8 digits by default; a
/// realm may choose other lengths). Anything but letters and digits is refused before a request is made.
///
/// The code is a secret until it is used: `description` shows only its length.
public struct VerificationCode: Equatable, Sendable, CustomStringConvertible {
    public static let lengthRange = 6...20

    /// The normalised code, as sent.
    public let text: String

    public init(_ typed: String) throws(VerificationCodeError) {
        var normalised: [UInt8] = []
        for byte in typed.utf8 where byte != UInt8(ascii: " ") && byte != UInt8(ascii: "\t") {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"):
                normalised.append(byte)
            case UInt8(ascii: "A")...UInt8(ascii: "Z"):
                normalised.append(byte + 0x20)
            default:
                throw .notLettersAndDigits
            }
        }
        guard !normalised.isEmpty else { throw .empty }
        guard Self.lengthRange.contains(normalised.count) else { throw .length(normalised.count) }
        text = String(decoding: normalised, as: UTF8.self)
    }

    public var description: String { "VerificationCode(redacted, \(text.utf8.count) characters)" }

    /// A code known to be normalised already (chaff's random digits).
    init(normalised: String) { text = normalised }
}
