import EventLoop

/// Key download's events an operator alerts on (see `LogEvent`).
extension LogEvent {
    /// A sync run ended without finishing; the line says why and when the next try is.
    static let keySyncFailed = LogEvent("keysync_failed")
    /// The cursor could not be saved: the next run downloads again what this one processed.
    static let keySyncCursorUnsaved = LogEvent("keysync_cursor_unsaved")
}
