import KeyDownload
/// The badge's state and counters as numbers, for a fleet's monitoring: what Prometheus scrapes or reads
/// from node_exporter's textfile. Exposures appear only as a count and a time: never a key, an RPI or an
/// address (nothing here can hold one).
package struct BadgeMetrics: Equatable, Sendable {
    /// What staff call this badge (`badge.label`, e.g. `Room 12`); empty when not set.
    package var label = ""
    /// Unix time the agent started (now, less the monotonic time it has run), for its uptime.
    package var startedUnixSeconds: Int64?
    package var exposureNotificationEnabled = false
    /// On air as the controller confirmed it.
    package var broadcasting = false
    /// A scan window opened within the last `scanningWindowSeconds`.
    package var scanning = false
    package var rotations = 0
    package var scans = 0
    package var gaenReports = 0
    package var sightingsStored = 0
    package var sightingsDroppedOverScanLimit = 0
    package var sightingsDroppedOverHourLimit = 0
    package var storageUsedBytes: Int64?
    package var storageAvailableBytes: Int64?
    package var storageWritable = true
    package var oldestSightingAgeSeconds: Int64?
    package var clockTrusted = false
    package var clockJumps = 0
    package var lastClockJumpUnixSeconds: Int64?
    package var controllerReady = false
    package var controllerInitializations = 0
    package var controllerHardwareErrors = 0
    package var controllerTransportFailures = 0
    package var controllerCommandTimeouts = 0
    /// Seconds since the controller last sent any event; nil before it has.
    package var controllerSilentSeconds: Int64?
    /// The default key server's; nil when no key server is configured.
    package var keySync: KeySyncStatus?
    /// Each named key server's (`keyserver.<name>.*`), by name.
    package var namedKeySyncs: [KeySyncStatus] = []
    package var keyShareState: String?
    package var indicatorState: String = ""
    package var exposures = 0
    package var lastExposureDetectedUnixSeconds: Int64?
    /// Exposures the risk model notified whose signal nobody has acknowledged (the badge's button, `indicator ack`).
    package var exposuresToAcknowledge = 0
    /// Unix time the earliest of them was detected: since when the badge has asked for someone; nil when none.
    package var firstUnacknowledgedExposureUnixSeconds: Int64?
    /// `health.max_sync_age_hours` in seconds: how long the badge may go without a key sync before it is stale.
    package var maximumSyncAgeSeconds: Int64 = 0
    /// The longest turn of the event loop, when the loop measures it.
    package var longestLoopTurn: Duration?

    /// A scan every 210–290 s: a badge that opened none for this long is not scanning.
    static let scanningWindowSeconds: Int64 = 600

    package init() {}
}
