import EventLoop

/// The radio's, the sighting store's and retention's events an operator alerts on or a runbook names (see `LogEvent`).
extension LogEvent {
    /// A new exposure key could not be stored: the badge is off air until it can.
    static let keysUnwritable = LogEvent("keys_unwritable")
    /// Sightings could not be written; they are kept in memory for the next attempt.
    static let sightingsUnwritable = LogEvent("sightings_unwritable")
    /// Data older than 14 days could not be deleted.
    static let retentionFailed = LogEvent("retention_failed")
    /// The sighting store found damage at start and recovered what it could.
    static let storeRecovered = LogEvent("store_recovered")
}
