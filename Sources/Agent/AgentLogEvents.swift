import EventLoop

/// The badge services' events an operator alerts on or a runbook names (see `LogEvent`).
extension LogEvent {
    /// The clock lost its trust: no advertising, scanning or deletion until it returns.
    public static let clockUntrusted = LogEvent("clock_untrusted")
    /// The wall clock moved against the monotonic clock.
    public static let clockJumped = LogEvent("clock_jumped")
    /// A new exposure key could not be stored: the badge is off air until it can.
    public static let keysUnwritable = LogEvent("keys_unwritable")
    /// Sightings could not be written; they are kept in memory for the next attempt.
    public static let sightingsUnwritable = LogEvent("sightings_unwritable")
    /// Data older than 14 days could not be deleted.
    public static let retentionFailed = LogEvent("retention_failed")
    /// The sighting store found damage at start and recovered what it could.
    public static let storeRecovered = LogEvent("store_recovered")
    /// An exposure was found and recorded (the line names its day and duration, never a key).
    public static let exposureRecorded = LogEvent("exposure_recorded")
    /// The notify command failed or had to be killed.
    public static let notifyFailed = LogEvent("notify_failed")
    /// An indicator output or the button stopped working.
    public static let indicatorFailed = LogEvent("indicator_failed")
    /// The key share's record could not be written: a restart now would lose the share.
    public static let keyShareUnsaved = LogEvent("keyshare_unsaved")
}
