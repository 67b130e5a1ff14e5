/// The answer of `/api/verify`: what the code stands for, and the token that asks for a certificate later
/// (single use, valid 24 hours by default). The token is a secret: `description` does not show it.
public struct VerifiedCode: Equatable, Sendable, CustomStringConvertible {
    public let testType: TestType
    public let symptomDate: UTCDay?
    public let testDate: UTCDay?
    public let token: String

    public init(testType: TestType, symptomDate: UTCDay?, testDate: UTCDay?, token: String) {
        self.testType = testType
        self.symptomDate = symptomDate
        self.testDate = testDate
        self.token = token
    }

    /// Reads the answer; an error answer, or one that is not the API's, throws.
    public init(status: Int, body: [UInt8]) throws(HealthAuthorityError) {
        let endpoint = PublishingEndpoint.verify
        let members = try HealthAuthorityAnswer.members(status: status, body: body, endpoint: endpoint)
        guard let typeName = try HealthAuthorityAnswer.string("testtype", in: members, endpoint: endpoint) else {
            throw .malformedAnswer("testtype is missing", endpoint: endpoint)
        }
        guard let testType = TestType(rawValue: typeName) else {
            throw .malformedAnswer("testtype is not one of confirmed, likely, negative, user-report", endpoint: endpoint)
        }
        self.init(testType: testType,
                  symptomDate: try HealthAuthorityAnswer.day("symptomDate", in: members, endpoint: endpoint),
                  testDate: try HealthAuthorityAnswer.day("testDate", in: members, endpoint: endpoint),
                  token: try HealthAuthorityAnswer.plainText("token", in: members, endpoint: endpoint))
    }

    public var description: String {
        "VerifiedCode(\(testType.rawValue), symptoms \(symptomDate.map { $0.description } ?? "-"), "
            + "test \(testDate.map { $0.description } ?? "-"), token redacted)"
    }
}
