/// The key sync as the console's `sync` and `status` show it.
public struct KeySyncStatus: Equatable, Sendable {
    public enum Phase: Equatable, Sendable {
        case notConfigured
        /// Configured, waiting for a trusted clock.
        case waitingForClock
        case idle
        case listing
        case downloading(file: Int, of: Int)
        case matching(file: Int, of: Int)
        /// Waiting to try a failed download again.
        case retrying(attempt: Int)
    }

    public var phase: Phase = .notConfigured
    /// The server, as configured.
    public var server: String?
    /// What has been processed: "after index line …" or "N days".
    public var cursor: String = ""
    /// Unix seconds.
    public var lastSuccess: Int64?
    public var lastError: String?
    /// Unix seconds of the next periodic sync, nil while one runs or when none is scheduled.
    public var nextSync: Int64?
    public var lastRun: SyncReport?
    /// The run in progress.
    public var currentRun: SyncReport?

    public init() {}
}
