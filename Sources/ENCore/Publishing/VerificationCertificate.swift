/// The answer of `/api/certificate`: a JWT signed by the health authority that lets the key server accept
/// exactly the keys whose `ekeyhmac` it was issued for, for 15 minutes. Secret: `description` hides it.
public struct VerificationCertificate: Equatable, Sendable, CustomStringConvertible {
    public let jwt: String

    public init(jwt: String) { self.jwt = jwt }

    /// Reads the answer; an error answer, or one that is not the API's, throws.
    public init(status: Int, body: [UInt8]) throws(HealthAuthorityError) {
        let endpoint = PublishingEndpoint.certificate
        let members = try HealthAuthorityAnswer.members(status: status, body: body, endpoint: endpoint)
        let text = try HealthAuthorityAnswer.plainText("certificate", in: members, endpoint: endpoint)
        let segments = text.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard segments.count == 3, segments.allSatisfy({ !$0.isEmpty && $0.allSatisfy(Self.isBase64URL) }) else {
            throw .malformedAnswer("certificate is not a JWT", endpoint: endpoint)
        }
        self.init(jwt: text)
    }

    private static func isBase64URL(_ byte: UInt8) -> Bool {
        (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte)
            || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
    }

    public var description: String { "VerificationCertificate(redacted, \(jwt.utf8.count) bytes)" }
}
