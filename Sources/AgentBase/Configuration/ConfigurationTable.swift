/// Every key the agent knows, in the order `config list` shows them. Anything else in a config file or a
/// `--set` is an error: a misspelt key must not be silently ignored on a device nobody watches.
extension ConfigurationKey {
    package static let badgeLabel = ConfigurationKey(
        "badge.label", .label, default: "",
        "what staff call this badge, e.g. Room 12: shown by status, carried by the metrics (enbeacon_badge_info) "
            + "to the care home's page; a room number or initials, never a name, since it travels the home's network")
    package static let keyServerStyle = ConfigurationKey(
        "keyserver.style", .choice(["google", "cwa", "folder"]), default: "google",
        "how the key server lists its exports: google (index.txt), cwa (Corona-Warn-App days), folder (file:// folder)")
    package static let keyServerIndexURL = ConfigurationKey(
        "keyserver.index_url", .url, default: "",
        "google: URL of index.txt, one export path per line, oldest first")
    package static let keyServerBaseURL = ConfigurationKey(
        "keyserver.base_url", .url, default: "",
        "google: prefix of each index line (default: the index's folder); cwa: server root; folder: file:// URL")
    package static let keyServerCountry = ConfigurationKey(
        "keyserver.country", .countryCode, default: "DE",
        "cwa: the country in /version/v1/diagnosis-keys/country/{CC}/date")
    package static let keyServerCAFile = ConfigurationKey(
        "keyserver.ca_file", .path, default: "",
        "PEM file of the CAs trusted for HTTPS instead of the system store")
    package static let keyServerPublicKey = ConfigurationKey(
        "keyserver.public_key", .path, default: "",
        "PEM file of the key server's P-256 public key; exports it did not sign are never used")
    package static let keyServerKeyID = ConfigurationKey(
        "keyserver.key_id", .identifier, default: "",
        "verification_key_id the exports name the public key by (cwa default: 262)")
    package static let keyServerKeyVersion = ConfigurationKey(
        "keyserver.key_version", .identifier, default: "v1",
        "verification_key_version the exports name the public key by")
    package static let syncIntervalHours = ConfigurationKey(
        "sync.interval_hours", .integer(1...168), default: "4",
        "hours between key downloads (a few minutes of random jitter are added)")
    package static let syncMaxFileBytes = ConfigurationKey(
        "sync.max_file_bytes", .integer(65_536...2_147_483_647), default: "268435456",
        "largest export accepted, bytes (the download, and its export.bin inflated); it goes to a file, not to memory")
    package static let syncMaxIndexBytes = ConfigurationKey(
        "sync.max_index_bytes", .integer(1_024...67_108_864), default: "4194304",
        "largest index.txt accepted, bytes (read into memory); a larger one fails the sync")
    package static let syncMaxIndexLines = ConfigurationKey(
        "sync.max_index_lines", .integer(1...1_000_000), default: "100000",
        "most lines an index.txt may have; a longer one fails the sync")
    package static let syncMaxLineBytes = ConfigurationKey(
        "sync.max_line_bytes", .integer(16...65_536), default: "1024",
        "longest index line, bytes; a longer (or otherwise malformed) line is skipped")
    package static let syncMaxFiles = ConfigurationKey(
        "sync.max_files", .integer(1...100_000), default: "1000",
        "most exports downloaded in one sync; the rest wait for the next")
    package static let syncMaxRedirects = ConfigurationKey(
        "sync.max_redirects", .integer(0...20), default: "5",
        "redirects followed per download, each only to the same scheme, host and port")
    package static let syncDownloadTimeoutSeconds = ConfigurationKey(
        "sync.download_timeout_seconds", .integer(10...86_400), default: "3600",
        "longest one download may take, seconds")
    package static let syncMinRate = ConfigurationKey(
        "sync.min_rate", .integer(1...100_000_000), default: "1024",
        "bytes a second below which a download is abandoned (after sync.min_rate_seconds)")
    package static let syncMinRateSeconds = ConfigurationKey(
        "sync.min_rate_seconds", .integer(1...3_600), default: "60",
        "seconds a download may stay below sync.min_rate")
    package static let syncGiveUpAfterRuns = ConfigurationKey(
        "sync.give_up_after_runs", .integer(1...100), default: "3",
        "syncs in a row an export may fail (network, 5xx) before it is skipped")
    package static let riskConfig = ConfigurationKey(
        "risk.config", .path, default: "",
        "ENExposureConfiguration JSON for v1 scoring (and optionally v2); empty: the SPEC §5 defaults")
    static let riskThreshold = ConfigurationKey(
        "risk.threshold", .integer(0...4096), default: "1",
        "v1 risk score at or above which an exposure is notified")
    package static let riskModel = ConfigurationKey(
        "risk.model", .choice(["google", "cwa"]), default: "google",
        "what decides that exposures are notified: google (each one's v1 score against risk.threshold) or cwa "
            + "(the Corona-Warn-App's risk calculation over every window, with risk.cwa_config)")
    static let riskCWAConfig = ConfigurationKey(
        "risk.cwa_config", .path, default: "",
        "the Corona-Warn-App's risk-calculation configuration (JSON, the app's own shape), required with risk.model cwa")
    static let notifyCommand = ConfigurationKey(
        "notify.command", .command, default: "",
        "run with /bin/sh -c for each notified exposure and each key share outcome, the event as JSON on stdin")
    package static let shareVerificationURL = ConfigurationKey(
        "share.verification_url", .url, default: "",
        "the health authority's verification server (device API): keys share sends codes to /api/verify there")
    package static let shareAPIKey = ConfigurationKey(
        "share.api_key", .secret, default: "",
        "the device API key the health authority gave for its verification server (never shown or logged)")
    package static let sharePublishURL = ConfigurationKey(
        "share.publish_url", .url, default: "",
        "the key server's publish endpoint (…/v1/publish) a shared wearer's keys are sent to")
    package static let shareHealthAuthorityID = ConfigurationKey(
        "share.health_authority_id", .identifier, default: "",
        "healthAuthorityID the key server knows the health authority by")
    package static let shareChaffPerDay = ConfigurationKey(
        "share.chaff_per_day", .integer(0...24), default: "0",
        "meaningless X-Chaff requests to the health authority a day, at random times, so that a real share "
            + "cannot be told from noise on the network (0: none)")
    package static let matchBatchKeys = ConfigurationKey(
        "match.batch_keys", .integer(1...100_000), default: "200",
        "diagnosis keys matched per slice before the radio and console get their turn")

    package static let clockMaximumJumpMinutes = ConfigurationKey(
        "clock.max_jump_minutes", .integer(1...10_080), default: "60",
        "a wall-clock jump larger than this stops deleting 14-day-old data until the time is confirmed "
            + "(time trust, time set, or an hour of NTP)")
    package static let sightingsMaximumPerScan = ConfigurationKey(
        "sightings.max_per_scan", .integer(16...4096), default: "256",
        "new sightings kept from one scan window; more distinct beacons than this (a flood) are counted, not stored")
    package static let sightingsMaximumPerHour = ConfigurationKey(
        "sightings.max_per_hour", .integer(100...100_000), default: "1200",
        "new sightings kept per hour; beyond it they are counted, not stored, so a flood cannot evict two weeks "
            + "of real ones")

    package static let metricsTextfile = ConfigurationKey(
        "metrics.textfile", .path, default: "",
        "write the badge's metrics in Prometheus' text format to this file (node_exporter's textfile collector "
            + "reads it; name it *.prom), replaced atomically every metrics.interval_seconds; empty: off")
    package static let metricsIntervalSeconds = ConfigurationKey(
        "metrics.interval_seconds", .integer(5...3_600), default: "15",
        "seconds between two writes of metrics.textfile")
    package static let metricsListen = ConfigurationKey(
        "metrics.listen", .ipv4Endpoint, default: "",
        "serve GET /metrics (Prometheus' text format) over plain HTTP on this address and port, e.g. 127.0.0.1:9101; "
            + "empty: off")
    package static let healthMaxSyncAgeHours = ConfigurationKey(
        "health.max_sync_age_hours", .integer(1...720), default: "24",
        "ctl health fails when a configured key server has not been synced for longer than this")

    /// The table, in display order.
    package static let all: [ConfigurationKey] = [
        badgeLabel, keyServerStyle, keyServerIndexURL, keyServerBaseURL, keyServerCountry, keyServerCAFile, keyServerPublicKey,
        keyServerKeyID, keyServerKeyVersion, syncIntervalHours, syncMaxFileBytes, syncMaxIndexBytes, syncMaxIndexLines,
        syncMaxLineBytes, syncMaxFiles, syncMaxRedirects, syncDownloadTimeoutSeconds, syncMinRate, syncMinRateSeconds,
        syncGiveUpAfterRuns,
    ] + keyServerLimits + [
        riskConfig, riskThreshold, riskModel, riskCWAConfig, notifyCommand, shareVerificationURL, shareAPIKey, sharePublishURL,
        shareHealthAuthorityID, shareChaffPerDay, matchBatchKeys, clockMaximumJumpMinutes,
        sightingsMaximumPerScan, sightingsMaximumPerHour, metricsTextfile, metricsIntervalSeconds, metricsListen, healthMaxSyncAgeHours,
        radioRSSICorrection,
    ]

    private static let byName: [String: ConfigurationKey] = Dictionary(uniqueKeysWithValues: all.map { ($0.name, $0) })

    /// The key called `name`, or nil if the agent has no such key: one of the table, or a named key server's.
    package static func named(_ name: String) -> ConfigurationKey? {
        byName[name] ?? namedKeyServerSetting(name).map { $0.setting.forKeyServer($0.server) }
    }
}
