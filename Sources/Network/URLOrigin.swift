/// The scheme, host and port of a URL: what a redirect must keep to be followed. Pure.
///
/// Parsed as RFC 3986 lays out an authority (`userinfo@host:port`, IPv6 hosts in brackets); the scheme and
/// host are compared without case, and a missing port is the scheme's default, so `http://k:80/` and
/// `http://K/` are one origin. Nil for text with no `scheme://`.
struct URLOrigin: Hashable {
    let scheme: String
    let host: String
    let port: Int?

    init?(_ url: String) {
        // The scheme ends at the first ':' and must be followed by "//" (no String search: that would link
        // _StringProcessing into a binary with a size budget).
        guard let colon = url.firstIndex(of: ":"), url[colon...].hasPrefix("://") else { return nil }
        let scheme = url[..<colon].lowercased()
        guard !scheme.isEmpty else { return nil }
        let rest = url[url.index(colon, offsetBy: 3)...]
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        let hostAndPort = authority.lastIndex(of: "@").map { authority[authority.index(after: $0)...] } ?? authority
        var host = hostAndPort
        var portText: Substring?
        if hostAndPort.hasPrefix("[") {
            // [v6 address]:port
            guard let close = hostAndPort.firstIndex(of: "]") else { return nil }
            host = hostAndPort[...close]
            let after = hostAndPort[hostAndPort.index(after: close)...]
            if after.hasPrefix(":") { portText = after.dropFirst() } else if !after.isEmpty { return nil }
        } else if let colon = hostAndPort.lastIndex(of: ":") {
            host = hostAndPort[..<colon]
            portText = hostAndPort[hostAndPort.index(after: colon)...]
        }
        var port: Int? = switch scheme {
        case "http": 80
        case "https": 443
        default: nil
        }
        if let portText, !portText.isEmpty {
            guard portText.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let number = Int(portText),
                  number <= 65_535 else { return nil }
            port = number
        }
        self.scheme = scheme
        self.host = host.lowercased()
        self.port = port
    }
}
