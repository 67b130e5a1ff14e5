/// What a scraper asked for, read from an HTTP request head: pure, so every malformed shape is tested
/// without a socket. Only `GET /metrics` (and HEAD) is served; everything else is answered and closed.
enum MetricsRequest: Equatable {
    case metrics(head: Bool)
    case notFound
    case methodNotAllowed
    case badRequest

    /// The longest request head read (a scraper sends a few hundred bytes).
    static let maximumHeadBytes = 8192

    /// The head's end (the index after `\r\n\r\n`, or a bare `\n\n`), if it has arrived.
    static func headEnd(in bytes: [UInt8]) -> Int? {
        var i = 0
        while i + 1 < bytes.count {
            if bytes[i] == 0x0A {
                if bytes[i + 1] == 0x0A { return i + 2 }
                if bytes[i + 1] == 0x0D, i + 2 < bytes.count, bytes[i + 2] == 0x0A { return i + 3 }
            }
            i += 1
        }
        return nil
    }

    /// The request line decides: `METHOD SP TARGET SP HTTP/1.x`. Headers are not needed to answer.
    init(head: ArraySlice<UInt8>) {
        let line = head.prefix { $0 != 0x0D && $0 != 0x0A }
        let parts = line.split(separator: 0x20, omittingEmptySubsequences: false)
        guard parts.count == 3, parts[2].starts(with: Array("HTTP/1.".utf8)), parts[2].count == 8,
              parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy { (0x21...0x7E).contains($0) } }) else {
            self = .badRequest
            return
        }
        let method = String(decoding: parts[0], as: UTF8.self)
        let target = String(decoding: parts[1], as: UTF8.self)
        guard method == "GET" || method == "HEAD" else {
            self = .methodNotAllowed
            return
        }
        // A query (Prometheus may add one) does not change the answer.
        let path = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        self = path == "/metrics" ? .metrics(head: method == "HEAD") : .notFound
    }
}
