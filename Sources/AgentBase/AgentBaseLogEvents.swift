import EventLoop

/// The clock's and the exposures' events an operator alerts on or a runbook names (see `LogEvent`).
extension LogEvent {
    /// The clock lost its trust: no advertising, scanning or deletion until it returns.
    static let clockUntrusted = LogEvent("clock_untrusted")
    /// The wall clock moved against the monotonic clock.
    static let clockJumped = LogEvent("clock_jumped")
    /// An exposure was found and recorded (the line names its day and duration, never a key).
    static let exposureRecorded = LogEvent("exposure_recorded")
    /// The notify command failed or had to be killed.
    static let notifyFailed = LogEvent("notify_failed")
}
