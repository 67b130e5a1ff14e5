/// A key server's own limits: `keyserver.<limit>` for the default server and `keyserver.<name>.<limit>` for a
/// named one, one for each `sync.*` limit, with that key's range.
///
/// Feeds differ by an order of magnitude (the EU gateway's EUR feed or a Corona-Warn-App day's export against
/// a small national index), so one board-wide figure is either too tight for the large feed or too loose for
/// the small one. The `sync.*` key stays the board's default: a server's own key is empty unless given, and
/// empty means the `sync.*` value (`Configuration`'s fallback), so configurations written before these keys
/// existed mean what they meant.
extension ConfigurationKey {
    /// The `sync.*` limits a key server may set for itself, in display order.
    static let syncLimits: [ConfigurationKey] = [
        syncMaxFileBytes, syncMaxIndexBytes, syncMaxIndexLines, syncMaxLineBytes, syncMaxFiles, syncMaxRedirects,
        syncDownloadTimeoutSeconds, syncMinRate, syncMinRateSeconds, syncGiveUpAfterRuns,
    ]

    /// The default server's own limits (`keyserver.max_file_bytes`, …), in the order of `syncLimits`; a named
    /// server's are these through `forKeyServer`.
    static let keyServerLimits: [ConfigurationKey] = syncLimits.map(keyServerLimit(for:))

    private static let syncPrefix = "sync."

    /// The default server's own key for the `sync.*` limit `limit` (`forKeyServer` makes a named server's).
    package static func keyServerLimit(for limit: ConfigurationKey) -> ConfigurationKey {
        ConfigurationKey(keyServerPrefix + limit.name.dropFirst(syncPrefix.count), limit.kind, default: "",
                         "\(limit.name) for this key server only (empty: \(limit.name)'s value)", fallback: limit.name)
    }
}
