/// How the key share reaches the health authority: one JSON POST at a time, answered on the loop.
/// `HTTPClient` implements it over libcurl; tests substitute servers that answer as they are told.
public protocol HealthAuthorityTransport: AnyObject {
    /// POSTs `request`; `completion` runs on the loop with the answer, whatever its status, or why there was
    /// none. Returns a function that drops the request without calling `completion`.
    func send(_ request: HealthAuthorityRequest,
              completion: @escaping (Result<HealthAuthorityResponse, HealthAuthorityTransportFailure>) -> Void)
        -> () -> Void
}

/// One POST to the verification server or the key server.
public struct HealthAuthorityRequest: Equatable, Sendable {
    /// The longest one request may take, connection included, before a transport gives up on it: so also the
    /// longest `keys share CODE` waits, since it answers once the verification server has.
    public static let timeout: Duration = .seconds(60)

    public var url: String
    /// `Name: value` lines: the content type, the API key, `X-Chaff`.
    public var headers: [String]
    public var body: [UInt8]
    /// PEM file of trusted CAs instead of the system store (`keyserver.ca_file`).
    public var caFile: String?

    public init(url: String, headers: [String], body: [UInt8], caFile: String? = nil) {
        self.url = url
        self.headers = headers
        self.body = body
        self.caFile = caFile
    }
}

public struct HealthAuthorityResponse: Equatable, Sendable {
    public var status: Int
    public var body: [UInt8]

    public init(status: Int, body: [UInt8]) {
        self.status = status
        self.body = body
    }
}

/// Why a request got no answer.
public enum HealthAuthorityTransportFailure: Error, Equatable, Sendable {
    /// The network or the server: refused, reset, timed out. Worth another try.
    case unreachable(String)
    /// The request cannot work as configured (an unusable URL, an answer far larger than the API's).
    case unusable(String)
}
