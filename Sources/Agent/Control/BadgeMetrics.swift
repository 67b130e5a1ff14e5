import KeyDownload
/// The badge's state and counters as numbers, for a fleet's monitoring: what Prometheus scrapes or reads
/// from node_exporter's textfile. Exposures appear only as a count and a time: never a key, an RPI or an
/// address (nothing here can hold one).
package struct BadgeMetrics: Equatable, Sendable {
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
    /// The longest turn of the event loop, when the loop measures it.
    package var longestLoopTurn: Duration?

    /// A scan every 210–290 s: a badge that opened none for this long is not scanning.
    static let scanningWindowSeconds: Int64 = 600

    package init() {}
}
