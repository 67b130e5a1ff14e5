/// `ekeyhmac` (PUBLISH.md §4): the MAC a verification certificate carries so that the key server can check
/// the certificate was issued for exactly the keys it receives.
///
/// For each key `"<base64 key>.<rollingStartNumber>.<rollingPeriod>.<transmissionRisk>"`, sorted byte-wise
/// (so the order in which the keys are listed does not matter), joined with `,`, then HMAC-SHA256 with the
/// upload's secret and standard base64. The text holds the keys themselves, so it is never logged; its
/// byte buffer is zeroed once the MAC is made (best effort: Swift strings made on the way are not).
public enum ExposureKeyHMAC {
    /// Which fields each key contributes. The key server also accepts the three-field form when every
    /// transmission risk is 0; the badge always sends the four-field form.
    public enum Form: Sendable {
        case withTransmissionRisk
        case withoutTransmissionRisk
    }

    /// The 32-byte MAC of `keys` under `secret`.
    public static func mac(_ keys: [PublishedKey], secret: [UInt8],
                           form: Form = .withTransmissionRisk) throws(CryptoError) -> [UInt8] {
        var text = coveredText(keys, form: form)
        defer { wipe(&text) }
        return try HMACSHA256.mac(key: secret, message: text)
    }

    /// The MAC as the certificate request's `ekeyhmac` carries it: standard base64 of the 32 bytes.
    public static func base64(_ keys: [PublishedKey], secret: [UInt8],
                              form: Form = .withTransmissionRisk) throws(CryptoError) -> String {
        Base64.encode(try mac(keys, secret: secret, form: form))
    }

    /// The UTF-8 text the MAC covers.
    static func coveredText(_ keys: [PublishedKey], form: Form) -> [UInt8] {
        var lines = keys.map { key -> [UInt8] in
            var fields = [key.base64Key, String(key.rollingStartNumber.value), String(key.rollingPeriod)]
            if form == .withTransmissionRisk { fields.append(String(key.transmissionRisk)) }
            return Array(fields.joined(separator: ".").utf8)
        }
        // Byte-wise, whatever the locale or Unicode ordering would say: the key server sorts Go strings.
        lines.sort { $0.lexicographicallyPrecedes($1) }
        var text: [UInt8] = []
        for (index, line) in lines.enumerated() {
            if index > 0 { text.append(UInt8(ascii: ",")) }
            text += line
        }
        return text
    }

    private static func wipe(_ bytes: inout [UInt8]) {
        for index in bytes.indices { bytes[index] = 0 }
    }
}
