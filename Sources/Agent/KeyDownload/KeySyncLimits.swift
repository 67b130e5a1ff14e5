/// What one sync may cost, whatever the key server sends: each limit a `sync.*` configuration key with a
/// generous default, each refusal a log line and a word in `sync`.
///
/// Memory is bounded by design, not by these numbers alone: an export goes to a temporary file and is read
/// 64 KiB at a time, so `maxFileBytes` bounds disk and time. Only the index is held in memory while it is
/// read (`maxIndexBytes`), and only the lines still to download are kept of it (at most `maxFiles`).
public struct KeySyncLimits: Equatable, Sendable {
    /// Largest export download, and largest export.bin it may inflate to.
    public var maxFileBytes = 256 << 20
    public var maxIndexBytes = 4 << 20
    /// A Corona-Warn-App day list names about 14 days (~200 bytes); it is parsed as JSON, so it gets a
    /// tighter, fixed bound than an index.
    public static let maxDayListBytes = 64 << 10
    public var maxIndexLines = 100_000
    public var maxLineBytes = 1_024
    public var maxFiles = 1_000
    public var maxRedirects = 5
    public var downloadTimeout: Duration = .seconds(3600)
    /// Bytes a second, over `minimumRateWindow`.
    public var minimumRate = 1_024
    public var minimumRateWindow: Duration = .seconds(60)
    /// Runs in a row that may stop on the same export (its retries used up) before it is skipped.
    public var giveUpAfterRuns = 3

    public init() {}

    public init(configuration c: Configuration) {
        maxFileBytes = c.integer(.syncMaxFileBytes)
        maxIndexBytes = c.integer(.syncMaxIndexBytes)
        maxIndexLines = c.integer(.syncMaxIndexLines)
        maxLineBytes = c.integer(.syncMaxLineBytes)
        maxFiles = c.integer(.syncMaxFiles)
        maxRedirects = c.integer(.syncMaxRedirects)
        downloadTimeout = .seconds(c.integer(.syncDownloadTimeoutSeconds))
        minimumRate = c.integer(.syncMinRate)
        minimumRateWindow = .seconds(c.integer(.syncMinRateSeconds))
        giveUpAfterRuns = c.integer(.syncGiveUpAfterRuns)
    }
}
