/// `POST /api/verify`: exchanges a verification code for a token (PUBLISH.md §2).
public struct VerifyCodeRequest: Sendable {
    /// The `accept` lists the verification server takes: the clinical types nest, user reports are separate.
    static let acceptableLists: [[TestType]] = {
        let clinical: [[TestType]] = [[.confirmed], [.confirmed, .likely], [.confirmed, .likely, .negative]]
        return clinical + clinical.map { $0 + [.userReport] }
    }()

    public var code: VerificationCode
    /// The test types the badge shares keys for; a code of another type is answered `unsupported_test_type`
    /// and stays valid. A badge shares positive results: confirmed tests and clinical diagnoses.
    public var accept: [TestType]
    public var padding: RequestPadding

    public init(code: VerificationCode, accept: [TestType] = [.confirmed, .likely], padding: RequestPadding = .verify) {
        self.code = code
        self.accept = accept
        self.padding = padding
    }

    /// The JSON body, padded.
    public func body<G: RandomNumberGenerator>(using generator: inout G) throws(PublishingRequestError) -> String {
        guard Self.acceptableLists.contains(accept) else {
            throw .unsupportedText(member: "accept", reason: "must be confirmed, then likely, then negative (each "
                                   + "optional after confirmed), and optionally user-report")
        }
        let acceptList = accept.map { "\"\($0.rawValue)\"" }.joined(separator: ",")
        let unpadded = "{\"code\":" + (try PlainJSONString.quoted(code.text, member: "code"))
            + ",\"accept\":[" + acceptList + "],\"padding\":\"\"}"
        return try padding.pad(unpadded, using: &generator)
    }
}
