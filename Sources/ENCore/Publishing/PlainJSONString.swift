/// A JSON string literal for the texts a request to the health authority carries — codes, tokens,
/// certificates, base64, the health authority's id, padding — all printable ASCII that needs no escaping.
/// Anything else (a quote, a backslash, a control or non-ASCII character) is refused rather than escaped:
/// no genuine value of these members holds one, so such a value is a fault to report, not to send.
///
/// (ENCore has no JSON writer; the console's `JSONObject`/`JSONText` live in the Agent module. If they move
/// here, the request bodies can use them; this check would stay, as a validation.)
enum PlainJSONString {
    static func quoted(_ text: String, member: String, maxBytes: Int = 16_384) throws(PublishingRequestError) -> String {
        guard !text.isEmpty else { throw .unsupportedText(member: member, reason: "is empty") }
        guard text.utf8.count <= maxBytes else {
            throw .unsupportedText(member: member, reason: "is longer than \(maxBytes) bytes")
        }
        guard text.utf8.allSatisfy(isPlain) else {
            throw .unsupportedText(member: member, reason: "holds characters other than printable ASCII, or a quote or backslash")
        }
        return "\"" + text + "\""
    }

    /// Printable ASCII except `"` and `\`: the characters a JSON string holds as themselves.
    static func isPlain(_ byte: UInt8) -> Bool {
        byte >= 0x20 && byte < 0x7F && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\")
    }
}
