import EventLoop

/// The controller's events an operator alerts on (see `LogEvent`). A flapping radio shows as many
/// `controller_reinitialising` lines; a pulled dongle or a dead UART as `controller_lost` or `controller_unavailable`.
extension LogEvent {
    /// The transport cannot be opened: the adapter is absent or taken (logged once until it changes).
    public static let controllerUnavailable = LogEvent("controller_unavailable")
    /// The link to an initialised controller closed.
    public static let controllerLost = LogEvent("controller_lost")
    /// The controller is reset and set up again after a fault.
    public static let controllerReinitialising = LogEvent("controller_reinitialising")
    /// A command went unanswered within its timeout.
    public static let controllerSilent = LogEvent("controller_silent")
    /// Hardware errors right after each reset: the controller is closed and reopened later.
    public static let controllerFailing = LogEvent("controller_failing")
}
