import EventLoop

/// The key share's events an operator alerts on (see `LogEvent`).
extension LogEvent {
    /// The key share's record could not be written: a restart now would lose the share.
    static let keyShareUnsaved = LogEvent("keyshare_unsaved")
}
