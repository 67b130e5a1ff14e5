import EventLoop

/// Timing and radio parameters of the controller driver. Defaults are what a badge ships with;
/// tests shorten nothing here except where a fault test wants a faster ladder.
public struct DriverSettings: Sendable {
    /// How long a command may go unanswered before the controller is considered hung.
    public var commandTimeout: Duration = .seconds(2)
    /// First delay before reconnecting a failed transport; doubles per consecutive failure.
    public var reconnectInitialDelay: Duration = .milliseconds(250)
    public var reconnectMaximumDelay: Duration = .seconds(30)
    /// While the transport cannot even be opened (the adapter is absent: a dongle unplugged, a UART
    /// controller powered down, hci0 not registered yet), re-open attempts back off to at most this.
    /// Opening is one cheap system call, and a returning or newly plugged-in adapter is noticed
    /// within it. The long ladder above is for controllers that open and then misbehave.
    public var reopenMaximumDelay: Duration = .seconds(1)
    /// GAEN advertising interval: 200–270 ms (the Bluetooth spec of Exposure Notification).
    public var advertisingIntervalMin = BasebandSlots(milliseconds: 200)
    public var advertisingIntervalMax = BasebandSlots(milliseconds: 270)
    /// Scan window equal to the interval: listen continuously while a scan runs.
    public var scanInterval = BasebandSlots(milliseconds: 60)
    public var scanWindow = BasebandSlots(milliseconds: 60)

    public init() {}
}
