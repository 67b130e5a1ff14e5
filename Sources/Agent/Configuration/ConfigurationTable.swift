/// Every key the agent knows, in the order `config list` shows them. Anything else in a config file or a
/// `--set` is an error: a misspelt key must not be silently ignored on a device nobody watches.
extension ConfigurationKey {
    public static let keyServerStyle = ConfigurationKey(
        "keyserver.style", .choice(["google", "cwa", "folder"]), default: "google",
        "how the key server lists its exports: google (index.txt), cwa (Corona-Warn-App days), folder (file:// folder)")
    public static let keyServerIndexURL = ConfigurationKey(
        "keyserver.index_url", .url, default: "",
        "google: URL of index.txt, one export path per line, oldest first")
    public static let keyServerBaseURL = ConfigurationKey(
        "keyserver.base_url", .url, default: "",
        "google: prefix of each index line (default: the index's folder); cwa: server root; folder: file:// URL")
    public static let keyServerCountry = ConfigurationKey(
        "keyserver.country", .countryCode, default: "DE",
        "cwa: the country in /version/v1/diagnosis-keys/country/{CC}/date")
    public static let keyServerCAFile = ConfigurationKey(
        "keyserver.ca_file", .path, default: "",
        "PEM file of the CAs trusted for HTTPS instead of the system store")
    public static let keyServerPublicKey = ConfigurationKey(
        "keyserver.public_key", .path, default: "",
        "PEM file of the key server's P-256 public key; exports it did not sign are never used")
    public static let keyServerKeyID = ConfigurationKey(
        "keyserver.key_id", .identifier, default: "",
        "verification_key_id the exports name the public key by (cwa default: 262)")
    public static let keyServerKeyVersion = ConfigurationKey(
        "keyserver.key_version", .identifier, default: "v1",
        "verification_key_version the exports name the public key by")
    public static let syncIntervalHours = ConfigurationKey(
        "sync.interval_hours", .integer(1...168), default: "4",
        "hours between key downloads (a few minutes of random jitter are added)")
    public static let syncMaxFileBytes = ConfigurationKey(
        "sync.max_file_bytes", .integer(65_536...268_435_456), default: "33554432",
        "largest download accepted, bytes; a larger file is abandoned")
    public static let riskConfig = ConfigurationKey(
        "risk.config", .path, default: "",
        "ENExposureConfiguration JSON for v1 scoring (and optionally v2); empty: the SPEC §5 defaults")
    public static let riskThreshold = ConfigurationKey(
        "risk.threshold", .integer(0...4096), default: "1",
        "v1 risk score at or above which an exposure is notified")
    public static let notifyCommand = ConfigurationKey(
        "notify.command", .command, default: "",
        "run with /bin/sh -c for each notified exposure, the exposure as JSON on stdin")
    public static let matchBatchKeys = ConfigurationKey(
        "match.batch_keys", .integer(1...100_000), default: "200",
        "diagnosis keys matched per slice before the radio and console get their turn")

    public static let clockMaximumJumpMinutes = ConfigurationKey(
        "clock.max_jump_minutes", .integer(1...10_080), default: "60",
        "a wall-clock jump larger than this stops deleting 14-day-old data until the time is confirmed "
            + "(time trust, time set, or an hour of NTP)")
    public static let sightingsMaximumPerScan = ConfigurationKey(
        "sightings.max_per_scan", .integer(16...4096), default: "256",
        "new sightings kept from one scan window; more distinct beacons than this (a flood) are counted, not stored")
    public static let sightingsMaximumPerHour = ConfigurationKey(
        "sightings.max_per_hour", .integer(100...100_000), default: "1200",
        "new sightings kept per hour; beyond it they are counted, not stored, so a flood cannot evict two weeks "
            + "of real ones")

    /// The table, in display order.
    public static let all: [ConfigurationKey] = [
        keyServerStyle, keyServerIndexURL, keyServerBaseURL, keyServerCountry, keyServerCAFile, keyServerPublicKey,
        keyServerKeyID, keyServerKeyVersion, syncIntervalHours, syncMaxFileBytes, riskConfig, riskThreshold,
        notifyCommand, matchBatchKeys, clockMaximumJumpMinutes, sightingsMaximumPerScan, sightingsMaximumPerHour,
    ]

    private static let byName: [String: ConfigurationKey] = Dictionary(uniqueKeysWithValues: all.map { ($0.name, $0) })

    /// The key called `name`, or nil if the agent has no such key.
    public static func named(_ name: String) -> ConfigurationKey? { byName[name] }
}
