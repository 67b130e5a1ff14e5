import KeyDownload
/// The badge's state and counters as numbers, for a fleet's monitoring: what Prometheus scrapes or reads
/// from node_exporter's textfile. Exposures appear only as a count and a time: never a key, an RPI or an
/// address (nothing here can hold one).
public struct BadgeMetrics: Equatable, Sendable {
    public var exposureNotificationEnabled = false
    /// On air as the controller confirmed it.
    public var broadcasting = false
    /// A scan window opened within the last `scanningWindowSeconds`.
    public var scanning = false
    public var rotations = 0
    public var scans = 0
    public var gaenReports = 0
    public var sightingsStored = 0
    public var sightingsDroppedOverScanLimit = 0
    public var sightingsDroppedOverHourLimit = 0
    public var storageUsedBytes: Int64?
    public var storageAvailableBytes: Int64?
    public var storageWritable = true
    public var oldestSightingAgeSeconds: Int64?
    public var clockTrusted = false
    public var clockJumps = 0
    public var lastClockJumpUnixSeconds: Int64?
    public var controllerReady = false
    public var controllerInitializations = 0
    public var controllerHardwareErrors = 0
    public var controllerTransportFailures = 0
    public var controllerCommandTimeouts = 0
    /// Seconds since the controller last sent any event; nil before it has.
    public var controllerSilentSeconds: Int64?
    /// The default key server's; nil when no key server is configured.
    public var keySync: KeySyncStatus?
    /// Each named key server's (`keyserver.<name>.*`), by name.
    public var namedKeySyncs: [KeySyncStatus] = []
    public var keyShareState: String?
    public var indicatorState: String = ""
    public var exposures = 0
    public var lastExposureDetectedUnixSeconds: Int64?
    /// The longest turn of the event loop, when the loop measures it.
    public var longestLoopTurn: Duration?

    /// A scan every 210–290 s: a badge that opened none for this long is not scanning.
    public static let scanningWindowSeconds: Int64 = 600

    public init() {}
}
