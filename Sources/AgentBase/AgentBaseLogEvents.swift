import EventLoop

/// The clock's and the exposures' events an operator alerts on or a runbook names (see `LogEvent`).
extension LogEvent {
    /// The clock lost its trust: no advertising, scanning or deletion until it returns.
    public static let clockUntrusted = LogEvent("clock_untrusted")
    /// The wall clock moved against the monotonic clock.
    public static let clockJumped = LogEvent("clock_jumped")
    /// An exposure was found and recorded (the line names its day and duration, never a key).
    public static let exposureRecorded = LogEvent("exposure_recorded")
    /// The notify command failed or had to be killed.
    public static let notifyFailed = LogEvent("notify_failed")
}
