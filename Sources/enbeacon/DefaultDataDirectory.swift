import SystemIO

/// Where the agent keeps its data when `--data` is not given: systemd's `$STATE_DIRECTORY`, else
/// `~/.local/state/enbeacon`. `run` and `ctl` must agree on it, or `ctl` would not find the agent.
enum DefaultDataDirectory {
    static var path: String {
        environment("STATE_DIRECTORY") ?? environment("HOME").map { $0 + "/.local/state/enbeacon" } ?? "/var/lib/enbeacon"
    }

    /// The directory of the agent `enbeacon ctl` talks to: as `path`, unless no agent listens there but the
    /// systemd unit's does (`/var/lib/enbeacon`, its StateDirectory): on a badge, `sudo enbeacon ctl status`
    /// then reaches the agent the unit started, without flags.
    static var forClient: String {
        let own = path
        guard environment("STATE_DIRECTORY") == nil, !isSocket(own + "/console.sock"),
              isSocket(unitStateDirectory + "/console.sock") else { return own }
        return unitStateDirectory
    }

    /// Board/enbeacon.service's StateDirectory=enbeacon (with DynamicUser, a link into /var/lib/private).
    static let unitStateDirectory = "/var/lib/enbeacon"

    private static func isSocket(_ path: String) -> Bool {
        (try? Posix.status(of: path).kind) == .socket
    }

    private static func environment(_ name: String) -> String? { Posix.environment(name) }
}
