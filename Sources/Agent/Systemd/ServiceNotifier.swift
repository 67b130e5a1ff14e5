import EventLoop
import SystemIO

/// Tells systemd how the agent is, from the event loop: `READY=1` once the status first says ready,
/// `STATUS=` whenever its line changes, and `WATCHDOG=1` every quarter of `WATCHDOG_USEC`. The pings
/// come from a timer on the loop itself, so a loop stuck in a callback stops them, and systemd
/// (`WatchdogSec=` in Board/enbeacon.service) kills the agent and starts it again.
package final class ServiceNotifier {
    private let loop: any EventLoop
    private let socket: SystemdNotifySocket
    private let watchdogInterval: Duration?
    private let status: () -> ServiceStatus
    private var timer: TimerHandle?
    private var sentReady = false
    private var lastText: String?

    /// How often the status is looked at when there is no watchdog to feed.
    static let statusInterval: Duration = .seconds(1)

    package init(loop: any EventLoop, socket: SystemdNotifySocket, watchdogInterval: Duration?,
                status: @escaping () -> ServiceStatus) {
        self.loop = loop
        self.socket = socket
        self.watchdogInterval = watchdogInterval
        self.status = status
    }

    /// A notifier when systemd started the agent (`NOTIFY_SOCKET`), else nil.
    package static func fromEnvironment(loop: any EventLoop, status: @escaping () -> ServiceStatus) -> ServiceNotifier? {
        guard let socket = SystemdNotifySocket.fromEnvironment() else { return nil }
        let interval = watchdogInterval(microseconds: Posix.environment("WATCHDOG_USEC"), pid: Posix.environment("WATCHDOG_PID"),
                                        ownPID: Int(Posix.processID))
        return ServiceNotifier(loop: loop, socket: socket, watchdogInterval: interval, status: status)
    }

    /// The ping interval for `WATCHDOG_USEC` (a quarter of it: systemd kills at the full period, and a busy
    /// board may run a timer late), or nil without a watchdog or when `WATCHDOG_PID` names another process.
    static func watchdogInterval(microseconds: String?, pid: String?, ownPID: Int) -> Duration? {
        guard let text = microseconds, let usec = Int64(text), usec > 0 else { return nil }
        if let pid, Int(pid) != ownPID { return nil }
        return .microseconds(usec / 4)
    }

    package var pingInterval: Duration? { watchdogInterval }

    package func start() {
        tick()
    }

    /// `STOPPING=1`: systemd shows the agent as deactivating while it disables the radio.
    package func stopping() {
        if let timer { loop.cancel(timer) }
        timer = nil
        socket.send("STOPPING=1\nSTATUS=stopping")
    }

    private func tick() {
        let now = status()
        var lines: [String] = []
        if now.ready && !sentReady {
            sentReady = true
            lines.append("READY=1")
        }
        if now.text != lastText {
            lastText = now.text
            lines.append("STATUS=\(now.text)")
        }
        if watchdogInterval != nil { lines.append("WATCHDOG=1") }
        if !lines.isEmpty { socket.send(lines.joined(separator: "\n")) }
        let interval = min(watchdogInterval ?? Self.statusInterval, Self.statusInterval)
        timer = loop.schedule(after: interval) { self.tick() }
    }

}
