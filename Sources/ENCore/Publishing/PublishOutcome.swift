/// The answer of `/v1/publish` when keys were stored.
public struct PublishOutcome: Equatable, Sendable, CustomStringConvertible {
    /// Needed to send any of these keys again (e.g. to revise them); kept by the badge, never logged.
    public let revisionToken: String?
    public let insertedExposures: Int
    /// The server's words about keys it dropped.
    public let warnings: [String]
    /// Some keys were dropped (`partial_failure`); the others are stored.
    public let isPartialFailure: Bool

    public init(revisionToken: String?, insertedExposures: Int, warnings: [String], isPartialFailure: Bool) {
        self.revisionToken = revisionToken
        self.insertedExposures = insertedExposures
        self.warnings = warnings
        self.isPartialFailure = isPartialFailure
    }

    /// Reads the answer; an error answer, or one that is not the API's, throws.
    public init(status: Int, body: [UInt8]) throws(HealthAuthorityError) {
        let endpoint = PublishingEndpoint.publish
        let members = try HealthAuthorityAnswer.members(status: status, body: body, endpoint: endpoint)
        var revisionToken: String?
        if let text = try HealthAuthorityAnswer.string("revisionToken", in: members, endpoint: endpoint), !text.isEmpty {
            revisionToken = try HealthAuthorityAnswer.plainText("revisionToken", in: members, endpoint: endpoint)
        }
        var inserted = 0
        switch members["insertedExposures"] {
        case nil, .null?:
            break  // the key server leaves out a zero
        case .number(let number)? where number >= 0 && number <= 1_000_000 && number.rounded() == number:
            inserted = Int(number)
        case _?:
            throw .malformedAnswer("insertedExposures is not a whole number of keys", endpoint: endpoint)
        }
        var warnings: [String] = []
        switch members["warnings"] {
        case nil, .null?:
            break
        case .array(let items)?:
            for item in items {
                guard case .string(let text) = item else {
                    throw .malformedAnswer("warnings holds \(item.kindDescription), not text", endpoint: endpoint)
                }
                warnings.append(text)
            }
        case let other?:
            throw .malformedAnswer("warnings is \(other.kindDescription), not a list", endpoint: endpoint)
        }
        var isPartialFailure = false
        if case .string(let code)? = members["code"] { isPartialFailure = code == HealthAuthorityAnswer.partialFailure }
        self.init(revisionToken: revisionToken, insertedExposures: inserted, warnings: warnings,
                  isPartialFailure: isPartialFailure)
    }

    public var description: String {
        "PublishOutcome(\(insertedExposures) inserted\(isPartialFailure ? ", partial failure" : "")"
            + ", \(warnings.count) warnings, revision token \(revisionToken == nil ? "none" : "redacted"))"
    }
}
