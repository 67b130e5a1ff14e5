extension HTTPClient {
    public enum Failure: Error, Equatable, CustomStringConvertible {
        case tooLarge(limit: Int)
        case httpStatus(Int)
        /// The network or the connection failed: refused, reset, timed out, too slow, cut short.
        case transport(String)
        /// A redirect away from the request's scheme, host and port (or to a local file).
        case redirectRefused(to: String)
        case tooManyRedirects(limit: Int)
        /// A URL libcurl cannot use at all (malformed, or a scheme it does not speak).
        case badURL(String)
        /// The body could not be written to its file (a full disk): a local problem, not the server's.
        case localWrite(String)

        public var description: String {
            switch self {
            case .tooLarge(let limit): "response larger than \(limit) bytes, aborted"
            case .httpStatus(let code): "HTTP status \(code)"
            case .transport(let text): text
            case .redirectRefused(let url): "redirect to \(url) refused: only the same scheme, host and port are followed"
            case .tooManyRedirects(let limit): "more than \(limit) redirects"
            case .badURL(let text): "unusable URL: \(text)"
            case .localWrite(let text): "cannot write the download: \(text)"
            }
        }
    }
}
