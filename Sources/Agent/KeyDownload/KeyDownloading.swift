/// The diagnosis-key download as the agent drives it: started once the clock is trusted, given new settings
/// when the configuration changes, asked for a run by the console. The `KeySync` module implements it over
/// libcurl; the agent itself never links the network.
public protocol KeyDownloading: AnyObject {
    var status: KeySyncStatus { get }
    /// Begins periodic runs; called once the clock is trusted.
    func start()
    /// Cancels the run in progress and the schedule.
    func stop()
    /// New settings: a run in progress is cancelled and the schedule restarts.
    func reconfigure(_ settings: KeySyncSettings)
    /// Starts a run now unless one is running; `finished` gets that run's report.
    @discardableResult
    func syncNow(finished: ((SyncReport) -> Void)?) -> SyncRequest
}

/// The answer to a request for a run now.
public enum SyncRequest: Equatable, Sendable {
    case started
    case alreadyRunning
    case notConfigured
    case clockNotTrusted
}
