/// Reads an answer of either server (PUBLISH.md §2–3): the members of a success, or the error it stands for.
/// Answers are read with ENCore's strict `JSONValue`; members the badge does not use (`padding`, anything
/// newer) are ignored.
enum HealthAuthorityAnswer {
    /// The members of a successful answer. A 2xx answer without an error code is a success — on the key
    /// server, `partial_failure` too (the keys not dropped are stored). Anything else throws.
    static func members(status: Int, body: [UInt8],
                        endpoint: PublishingEndpoint) throws(HealthAuthorityError) -> [String: JSONValue] {
        var document: [String: JSONValue]?
        if case .object(let members)? = try? JSONValue.parse(utf8: body) { document = members }
        var code: String?
        if case .string(let text)? = document?[endpoint.errorCodeMember], !text.isEmpty { code = text }
        if (200...299).contains(status) {
            guard let document else {
                throw .malformedAnswer("HTTP \(status) without a JSON object", endpoint: endpoint)
            }
            if let code, !(endpoint == .publish && code == partialFailure) {
                throw error(code: code, status: status, endpoint: endpoint)
            }
            return document
        }
        if let code { throw error(code: code, status: status, endpoint: endpoint) }
        throw .httpStatus(status, endpoint: endpoint)
    }

    static let partialFailure = "partial_failure"

    private static func error(code: String, status: Int, endpoint: PublishingEndpoint) -> HealthAuthorityError {
        if let known = HealthAuthorityErrorCode(rawValue: code) { return .refused(known, endpoint: endpoint, status: status) }
        // An unknown code is shown to staff: only a short identifier is, never arbitrary server text.
        let identifier = code.utf8.count <= 64 && code.utf8.allSatisfy {
            (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == UInt8(ascii: "_")
        }
        return identifier ? .unknownErrorCode(code, endpoint: endpoint, status: status) : .httpStatus(status, endpoint: endpoint)
    }

    // MARK: - Typed members

    static func string(_ name: String, in members: [String: JSONValue],
                       endpoint: PublishingEndpoint) throws(HealthAuthorityError) -> String? {
        switch members[name] {
        case nil, .null?: return nil
        case .string(let text)?: return text
        case let other?: throw .malformedAnswer("\(name) is \(other.kindDescription), not a string", endpoint: endpoint)
        }
    }

    /// A text the badge sends back later (a token, a certificate, a revision token): present, and nothing a
    /// request would have to escape.
    static func plainText(_ name: String, in members: [String: JSONValue], endpoint: PublishingEndpoint,
                          maxBytes: Int = 16_384) throws(HealthAuthorityError) -> String {
        guard let text = try string(name, in: members, endpoint: endpoint), !text.isEmpty else {
            throw .malformedAnswer("\(name) is missing", endpoint: endpoint)
        }
        guard text.utf8.count <= maxBytes, text.utf8.allSatisfy(PlainJSONString.isPlain) else {
            throw .malformedAnswer("\(name) is not a printable ASCII text of at most \(maxBytes) bytes",
                                   endpoint: endpoint)
        }
        return text
    }

    /// A `YYYY-MM-DD` day, or nil when absent or empty.
    static func day(_ name: String, in members: [String: JSONValue],
                    endpoint: PublishingEndpoint) throws(HealthAuthorityError) -> UTCDay? {
        guard let text = try string(name, in: members, endpoint: endpoint), !text.isEmpty else { return nil }
        // ISO8601Time reads times; a day is its midnight, and only a day that reads back the same is real
        // (2021-02-30 is not).
        guard text.utf8.count == 10, let seconds = try? ISO8601Time.unixSeconds(text + "T00:00Z"),
              UTCDay(unixSeconds: seconds).description == text else {
            throw .malformedAnswer("\(name) is not a YYYY-MM-DD day", endpoint: endpoint)
        }
        return UTCDay(unixSeconds: seconds)
    }
}
