#if canImport(Glibc)
import Glibc
#endif

/// Where the agent keeps its data when `--data` is not given: systemd's `$STATE_DIRECTORY`, else
/// `~/.local/state/enbeacon`. `run` and `ctl` must agree on it, or `ctl` would not find the agent.
enum DefaultDataDirectory {
    static var path: String {
        environment("STATE_DIRECTORY") ?? environment("HOME").map { $0 + "/.local/state/enbeacon" } ?? "/var/lib/enbeacon"
    }

    private static func environment(_ name: String) -> String? { getenv(name).map { String(cString: $0) } }
}
