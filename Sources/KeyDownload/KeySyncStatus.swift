/// The key sync as the console's `sync` and `status` show it.
package struct KeySyncStatus: Equatable, Sendable {
    package enum Phase: Equatable, Sendable, CustomStringConvertible {
        case notConfigured
        /// Configured, waiting for a trusted clock.
        case waitingForClock
        /// Due, waiting for another key server's sync to end (one runs at a time).
        case waitingForTurn
        case idle
        case listing
        /// Matching the keys held by earlier syncs whose embargo has ended (before the listing, which they
        /// do not need).
        case matchingHeldKeys
        case downloading(file: Int, of: Int)
        /// Checking the signature of a downloaded export.
        case verifying(file: Int, of: Int)
        case matching(file: Int, of: Int)
        /// Waiting to try a failed download again.
        case retrying(attempt: Int, of: Int)

        /// A stable one-word name (`sync --json`'s `phase`); the numbers go in fields of their own.
        package var name: String {
            switch self {
            case .notConfigured: "notConfigured"
            case .waitingForClock: "waitingForClock"
            case .waitingForTurn: "waitingForTurn"
            case .idle: "idle"
            case .listing: "listing"
            case .matchingHeldKeys: "matchingHeldKeys"
            case .downloading: "downloading"
            case .verifying: "verifying"
            case .matching: "matching"
            case .retrying: "retrying"
            }
        }

        /// In words, for `sync` and `status`.
        package var description: String {
            switch self {
            case .notConfigured: "not configured (no key server in keyserver.*)"
            case .waitingForClock: "waiting for a trusted clock"
            case .waitingForTurn: "waiting for another key server's sync to end"
            case .idle: "idle"
            case .listing: "fetching the list of exports"
            case .matchingHeldKeys: "matching keys held until their embargo ended"
            case .downloading(let file, let count): "downloading export \(file) of \(count)"
            case .verifying(let file, let count): "checking the signature of export \(file) of \(count)"
            case .matching(let file, let count): "matching the keys of export \(file) of \(count)"
            case .retrying(let attempt, let count): "waiting to try again (attempt \(attempt) of \(count))"
            }
        }

        /// Which export of how many, when the phase is about one.
        package var file: (number: Int, of: Int)? {
            switch self {
            case .downloading(let file, let count), .verifying(let file, let count), .matching(let file, let count):
                (file, count)
            default: nil
            }
        }
    }

    package var phase: Phase = .notConfigured
    /// The server's name (`keyserver.<name>.*`); nil for the default server (`keyserver.*`).
    package var name: String?
    /// The server, as configured.
    package var server: String?
    /// What has been processed: "after index line …" or "N days".
    package var cursor: String = ""
    /// Unix seconds.
    package var lastSuccess: Int64?
    package var lastError: String?
    /// Unix seconds of the next periodic sync, nil while one runs or when none is scheduled.
    package var nextSync: Int64?
    package var lastRun: SyncReport?
    /// The run in progress.
    package var currentRun: SyncReport?
    /// What every run since the agent started added up to (the metrics' counters).
    package var totals = Totals()

    /// Counts that only grow while the agent runs.
    package struct Totals: Equatable, Sendable {
        package var runs = 0
        /// Runs that failed, by where: the listing, an export (download, disk), or anything else.
        package var listingFailures = 0
        package var exportFailures = 0
        package var files = 0
        package var keys = 0

        init() {}

        /// Adds one finished run.
        package mutating func add(_ report: SyncReport) {
            runs += 1
            files += report.processed
            keys += report.keys
            if case .failed(let reason) = report.outcome {
                if reason.hasPrefix("listing ") { listingFailures += 1 } else { exportFailures += 1 }
            }
        }
    }

    package init() {}
}
