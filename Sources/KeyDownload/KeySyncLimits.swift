import AgentBase
/// What one sync may cost, whatever the key server sends: each limit a `sync.*` configuration key with a
/// generous default, which a server may replace with its own (`keyserver.<name>.max_file_bytes`), each refusal
/// a log line and a word in `sync` that names the key in force.
///
/// Memory is bounded by design, not by these numbers alone: an export goes to a temporary file and is read
/// 64 KiB at a time, so `maxFileBytes` bounds disk and time. Only the index is held in memory while it is
/// read (`maxIndexBytes`), and only the lines still to download are kept of it (at most `maxFiles`).
package struct KeySyncLimits: Equatable, Sendable {
    /// Largest export download, and largest export.bin it may inflate to.
    var maxFileBytes = 256 << 20
    var maxIndexBytes = 4 << 20
    /// A Corona-Warn-App day list names about 14 days (~200 bytes); it is parsed as JSON, so it gets a
    /// tighter, fixed bound than an index.
    static let maxDayListBytes = 64 << 10
    var maxIndexLines = 100_000
    package var maxLineBytes = 1_024
    var maxFiles = 1_000
    var maxRedirects = 5
    var downloadTimeout: Duration = .seconds(3600)
    /// Bytes a second, over `minimumRateWindow`.
    var minimumRate = 1_024
    var minimumRateWindow: Duration = .seconds(60)
    /// Runs in a row that may stop on the same export (its retries used up) before it is skipped.
    var giveUpAfterRuns = 3

    init() {}

    /// The key that set each limit, by its `sync.*` key's name, where that is the server's own: a refusal names
    /// the key to change.
    private var ownKeys: [String: String] = [:]

    /// The limits of the server called `server` (nil: the default server): each its own key's value, or the
    /// `sync.*` key's while its own is empty.
    init(configuration c: Configuration, server: String? = nil) {
        var ownKeys: [String: String] = [:]
        func value(_ limit: ConfigurationKey) -> Int {
            let own = ConfigurationKey.keyServerLimit(for: limit).forKeyServer(server)
            if c.source(of: own) != .fallback { ownKeys[limit.name] = own.name }
            return c.integer(own)
        }
        maxFileBytes = value(.syncMaxFileBytes)
        maxIndexBytes = value(.syncMaxIndexBytes)
        maxIndexLines = value(.syncMaxIndexLines)
        maxLineBytes = value(.syncMaxLineBytes)
        maxFiles = value(.syncMaxFiles)
        maxRedirects = value(.syncMaxRedirects)
        downloadTimeout = .seconds(value(.syncDownloadTimeoutSeconds))
        minimumRate = value(.syncMinRate)
        minimumRateWindow = .seconds(value(.syncMinRateSeconds))
        giveUpAfterRuns = value(.syncGiveUpAfterRuns)
        self.ownKeys = ownKeys
    }

    /// The name of the key that set `limit` (a `sync.*` key) for this server: the server's own, else `limit`'s.
    func keyName(_ limit: ConfigurationKey) -> String {
        ownKeys[limit.name] ?? limit.name
    }
}
