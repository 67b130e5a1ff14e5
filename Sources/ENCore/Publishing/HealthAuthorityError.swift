/// Why a request to the health authority's servers did not succeed, with a message staff can act on and what
/// the badge should do about it.
public enum HealthAuthorityError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What the badge should do next.
    public enum Disposition: Hashable, Sendable {
        /// A transient failure: try again with backoff, within the token's or certificate's lifetime.
        case retryLater
        /// The code, its token or its certificate can no longer be used: staff need a new code.
        case newCodeNeeded
        /// The badge's share.* settings are wrong: staff (or whoever set the badge up) must fix them.
        case checkConfiguration
        /// The badge sent something the server cannot take: a bug, retrying will not help.
        case badgeFault
    }

    /// The server refused with one of the published error codes.
    case refused(HealthAuthorityErrorCode, endpoint: PublishingEndpoint, status: Int)
    /// The server gave an error code this badge does not know.
    case unknownErrorCode(String, endpoint: PublishingEndpoint, status: Int)
    /// An HTTP status without the API's error shape: something in front of the server, or a wrong URL.
    case httpStatus(Int, endpoint: PublishingEndpoint)
    /// The answer is not what the API returns.
    case malformedAnswer(String, endpoint: PublishingEndpoint)
    /// No answer at all (connection refused, timeout, TLS): reported by the transport.
    case unreachable(String, endpoint: PublishingEndpoint)

    public var endpoint: PublishingEndpoint {
        switch self {
        case .refused(_, let endpoint, _), .unknownErrorCode(_, let endpoint, _), .httpStatus(_, let endpoint),
             .malformedAnswer(_, let endpoint), .unreachable(_, let endpoint):
            endpoint
        }
    }

    public var disposition: Disposition {
        switch self {
        case .refused(let code, _, _):
            code.disposition
        case .unknownErrorCode(_, _, let status):
            Self.disposition(ofStatus: status)
        case .httpStatus(let status, let endpoint):
            // The verification server answers a wrong or missing API key 401 without an error code.
            status == 401 && endpoint != .publish ? .checkConfiguration : Self.disposition(ofStatus: status)
        case .malformedAnswer:
            .checkConfiguration
        case .unreachable:
            .retryLater
        }
    }

    private static func disposition(ofStatus status: Int) -> Disposition {
        switch status {
        case 429, 500...599: .retryLater
        case 300...399, 404, 405: .checkConfiguration
        default: .badgeFault
        }
    }

    public var description: String {
        switch self {
        case .refused(let code, _, _):
            return code.message
        case .unknownErrorCode(let code, let endpoint, let status):
            let then = disposition == .retryLater ? "the badge will try again" : "report this to the badge's maintainer"
            return "\(endpoint.serverName) refused the request with an error this badge does not know "
                + "(\(code), HTTP \(status)): \(then)"
        case .httpStatus(let status, let endpoint):
            switch disposition {
            case .checkConfiguration where status == 401:
                return "the health authority refused the badge's API key: check share.api_key"
            case .checkConfiguration:
                return "there is no health authority API at \(endpoint.configurationKey) (HTTP \(status)): check it"
            case .retryLater:
                return "\(endpoint.serverName) is not answering properly (HTTP \(status)): the badge will try again"
            case .badgeFault, .newCodeNeeded:
                return "\(endpoint.serverName) refused the badge's request (HTTP \(status)): report this to the "
                    + "badge's maintainer"
            }
        case .malformedAnswer(let reason, let endpoint):
            return "the answer from \(endpoint.configurationKey) is not the health authority's API (\(reason)): "
                + "check \(endpoint.configurationKey)"
        case .unreachable(let reason, let endpoint):
            return "cannot reach \(endpoint.serverName) (\(reason)): the badge will try again"
        }
    }
}
