/// The three calls of a key upload, for requests and for saying which server answered what.
public enum PublishingEndpoint: String, Sendable {
    case verify = "/api/verify"
    case certificate = "/api/certificate"
    case publish = "/v1/publish"

    /// The configuration key that names this endpoint's server, for messages that ask staff to check it.
    public var configurationKey: String {
        switch self {
        case .verify, .certificate: "share.verification_url"
        case .publish: "share.publish_url"
        }
    }

    /// The server, in the words a message to staff uses.
    public var serverName: String {
        switch self {
        case .verify, .certificate: "the health authority's verification server"
        case .publish: "the key server"
        }
    }

    /// Where the server puts its error code: the verification server in `errorCode`, the key server in `code`.
    var errorCodeMember: String {
        switch self {
        case .verify, .certificate: "errorCode"
        case .publish: "code"
        }
    }
}
