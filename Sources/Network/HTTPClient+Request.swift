extension HTTPClient {
    public struct Request: Sendable {
        public var url: String
        /// A response larger than this is aborted: a key server cannot fill the SD card or the memory.
        public var maximumBytes: Int
        public var connectTimeout: Duration = .seconds(20)
        /// The whole transfer, connection included (each redirect hop starts it again).
        public var timeout: Duration = .seconds(3600)
        /// A transfer that moves fewer than `minimumRate` bytes a second for `minimumRateWindow` is abandoned:
        /// a server dripping a byte a second costs the window, not the total timeout.
        public var minimumRate: Int = 1
        public var minimumRateWindow: Duration = .seconds(60)
        /// Redirects followed (each within the request's origin) before the transfer is refused.
        public var maximumRedirects: Int = 5
        /// PEM file of trusted CAs instead of the system store (e.g. a health authority's own CA).
        public var caFile: String?
        /// A POST's body and headers; nil for a GET.
        public var post: Post?

        public init(url: String, maximumBytes: Int, caFile: String? = nil) {
            self.url = url
            self.maximumBytes = maximumBytes
            self.caFile = caFile
        }
    }

    /// What a POST sends: the body and its headers (`Name: value`, e.g. `Content-Type: application/json`).
    public struct Post: Sendable {
        public var body: [UInt8]
        public var headers: [String]

        public init(body: [UInt8], headers: [String]) {
            self.body = body
            self.headers = headers
        }
    }

    /// A POST's answer: any status, with its body.
    public struct Response: Equatable, Sendable {
        public var status: Int
        public var body: [UInt8]

        public init(status: Int, body: [UInt8]) {
            self.status = status
            self.body = body
        }
    }
}
