import EventLoop
import SystemIO

/// A test hook: with `ENBEACON_TEST_STALL_ON_SIGUSR1=1` in the environment, SIGUSR1 blocks the event loop
/// for good, as a callback stuck in a bug would. Tests use it to show that the systemd watchdog pings
/// stop, and that systemd then kills the agent and starts it again. Without the variable, SIGUSR1 keeps
/// its default action.
enum LoopStallHook {
    static var isEnabled: Bool { Posix.environment("ENBEACON_TEST_STALL_ON_SIGUSR1") == "1" }

    static func stall(log: Logger) -> Never {
        log.warn("test hook: SIGUSR1 blocks the event loop now")
        while true { Posix.sleep(milliseconds: 3_600_000) }
    }
}
