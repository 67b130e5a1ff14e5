import EventLoop

/// The indicator's events an operator alerts on (see `LogEvent`).
extension LogEvent {
    /// An indicator output or the button stopped working.
    static let indicatorFailed = LogEvent("indicator_failed")
}
