/// Where diagnosis keys come from, and how that server lists its export files.
package enum KeyServer: Hashable, Sendable, CustomStringConvertible {
    /// Google's exposure-notifications-server convention (also a `file://` folder): `index.txt` lists
    /// export paths oldest first, one per line; each is fetched as `baseURL + line`.
    case indexed(indexURL: String, baseURL: String)
    /// Corona-Warn-App: `{base}/version/v1/diagnosis-keys/country/{CC}/date` lists days as JSON,
    /// `…/date/{day}` is that day's export.
    case cwa(baseURL: String, country: String)

    /// What lists the exports.
    var listingURL: String {
        switch self {
        case .indexed(let indexURL, _): indexURL
        case .cwa(let base, let country): "\(Self.trimmed(base))/version/v1/diagnosis-keys/country/\(country)/date"
        }
    }

    /// The export named by a listing entry (an index line, a day).
    func exportURL(for entry: String) -> String {
        switch self {
        case .indexed(_, let base): base + entry
        case .cwa: "\(listingURL)/\(entry)"
        }
    }

    /// Names the server in the cursor file: a cursor is only meaningful for the server it was made with.
    var identity: String {
        switch self {
        case .indexed(let indexURL, let baseURL): "index \(indexURL) \(baseURL)"
        case .cwa(let base, let country): "cwa \(Self.trimmed(base)) \(country)"
        }
    }

    package var description: String {
        switch self {
        case .indexed(let indexURL, _): indexURL
        case .cwa(let base, let country): "\(Self.trimmed(base)) (Corona-Warn-App, \(country))"
        }
    }

    /// The folder part of a URL, up to and including its last slash: the default base of an index.
    package static func folder(of url: String) -> String {
        guard let slash = url.lastIndex(of: "/") else { return url + "/" }
        return String(url[...slash])
    }

    private static func trimmed(_ url: String) -> String {
        var url = url
        while url.hasSuffix("/") { url.removeLast() }
        return url
    }
}
