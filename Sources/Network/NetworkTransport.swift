/// How both network services reach their servers, each request answered on the loop: the key download's GETs
/// (a listing kept in memory, an export streamed to a file) and the key share's JSON POSTs. `HTTPClient`
/// implements it over libcurl; tests substitute servers that answer as they are told, without a socket.
///
/// Every call returns a function that drops the request without calling `completion`.
public protocol NetworkTransport: AnyObject {
    /// GETs `request`, its body kept in memory (at most `request.maximumBytes`); `completion` has the body or
    /// why there was none.
    func fetch(_ request: HTTPClient.Request, completion: @escaping (Result<[UInt8], HTTPClient.Failure>) -> Void)
        -> () -> Void

    /// GETs `request` into `descriptor`, an empty file open for writing (`path` names it in errors);
    /// `completion` has the number of bytes written, or why the file does not hold the body.
    func fetch(_ request: HTTPClient.Request, into descriptor: Int32, path: String,
               completion: @escaping (Result<Int, HTTPClient.Failure>) -> Void) -> () -> Void

    /// POSTs `request`; `completion` has the answer, whatever its status, or why there was none.
    func send(_ request: HealthAuthorityRequest,
              completion: @escaping (Result<HealthAuthorityResponse, HealthAuthorityTransportFailure>) -> Void)
        -> () -> Void

    /// No request will come for a while (a large export is being checked): what a transfer holds (libcurl, for
    /// `HTTPClient`) can go now rather than on its idle timer, so its memory and the caller's never add up.
    func unloadIfIdle()
}

extension NetworkTransport {
    /// A transport that holds nothing between requests has nothing to let go.
    public func unloadIfIdle() {}
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
