import AgentBase
import ENCore

/// What sharing a wearer's keys needs, resolved from the `share.*` keys: where the verification server and the
/// key server are, the API key, and the health authority's id; plus the timing the badge chooses itself.
package struct KeyShareSettings: Equatable, Sendable {
    /// `share.verification_url` with no trailing slash: the device API's `/api/verify` and `/api/certificate`
    /// are under it.
    var verificationURL: String?
    var apiKey: String?
    /// `share.publish_url`: the key server's `…/v1/publish`.
    var publishURL: String?
    package var healthAuthorityID: String?
    /// `keyserver.ca_file`: the same trust for the health authority's HTTPS servers as for its key downloads.
    var caFile: String?
    /// Chaff requests a day on average (`share.chaff_per_day`); 0: none.
    var chaffPerDay = 0
    /// After the UTC midnight that ends the day of consent, publishing waits a random time in this range: past
    /// 02:00, since a key may be distributed only 2 hours after its validity ends (SPEC §4) and receivers set a
    /// younger one aside as embargoed — a key server that exports at once would otherwise hand the day's key to
    /// badges and phones that cannot use it yet; and at random, so that badges that shared on one day do not
    /// all reach the key server at one moment.
    var publishDelay: ClosedRange<Int64> = 7_500...9_300
    /// Backoff while the verification server cannot give a certificate for a network error or a 5xx: within
    /// the token's lifetime, so it may reach half an hour.
    var certificateRetry = RetryPolicy(attempts: .max, firstDelay: .seconds(30), maximumDelay: .seconds(1800))
    /// The wait before trying the certificate again after a refusal the badge's settings or software caused
    /// (a wrong API key): the token stays usable until it expires, so it is kept, and tried again hourly and
    /// at once when `share.*` changes.
    var settingsRetryDelay: Duration = .seconds(3600)
    /// Backoff for the publish: the certificate lives 15 minutes, so it stays short.
    var publishRetry = RetryPolicy(attempts: .max, firstDelay: .seconds(10), maximumDelay: .seconds(120))
    /// How long a token is assumed to live when it does not say (PUBLISH.md §1: 24 h by default).
    var tokenLifetime: Int64 = 86_400
    /// How long a certificate is assumed to live when it does not say (PUBLISH.md §1: 15 minutes).
    var certificateLifetime: Int64 = 900

    package init() {}

    package init(configuration c: Configuration) {
        verificationURL = c.optional(.shareVerificationURL).map(Self.withoutTrailingSlash)
        apiKey = c.optional(.shareAPIKey)
        publishURL = c.optional(.sharePublishURL)
        healthAuthorityID = c.optional(.shareHealthAuthorityID)
        caFile = c.optional(.keyServerCAFile)
        chaffPerDay = c.integer(.shareChaffPerDay)
    }

    /// The `share.*` keys a share needs that have no value, in the order `config list` shows them.
    package var missingKeys: [String] {
        var missing: [String] = []
        if verificationURL == nil { missing.append(ConfigurationKey.shareVerificationURL.name) }
        if apiKey == nil { missing.append(ConfigurationKey.shareAPIKey.name) }
        if publishURL == nil { missing.append(ConfigurationKey.sharePublishURL.name) }
        if healthAuthorityID == nil { missing.append(ConfigurationKey.shareHealthAuthorityID.name) }
        return missing
    }

    var isConfigured: Bool { missingKeys.isEmpty }

    /// Where a call of the upload goes.
    func url(for endpoint: PublishingEndpoint) -> String? {
        switch endpoint {
        case .verify, .certificate: verificationURL.map { $0 + endpoint.rawValue }
        case .publish: publishURL
        }
    }

    /// The headers of a call: JSON, and the API key for the verification server (the key server does not
    /// take one, and is not given the health authority's credential).
    func headers(for endpoint: PublishingEndpoint, chaff: Bool = false) -> [String] {
        var headers = ["Content-Type: application/json", "Accept: application/json"]
        if endpoint != .publish, let apiKey { headers.append("X-API-Key: " + apiKey) }
        if chaff { headers.append("X-Chaff: 1") }
        return headers
    }

    private static func withoutTrailingSlash(_ url: String) -> String {
        var url = url
        while url.hasSuffix("/") { url.removeLast() }
        return url
    }
}
