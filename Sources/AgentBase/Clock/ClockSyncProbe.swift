import SystemIO

/// Asks the system whether the wall clock is synchronised. A protocol because tests and simulations
/// decide this themselves; the machines that run CI report "unsynchronised", like a Pi off the network.
/// Class-bound: the board build (Embedded Swift) allows no other existential.
package protocol ClockSyncProbe: AnyObject {
    /// nil when synchronised; otherwise why not, in words for `status`.
    func unsynchronisedReason() -> String?
}

/// The kernel's NTP state (adjtimex) or systemd-timesyncd's marker file.
package final class SystemClockSyncProbe: ClockSyncProbe {
    static let timesyncdMarker = "/run/systemd/timesync/synchronized"

    package init() {}

    package func unsynchronisedReason() -> String? {
        if KernelClock.kernelSaysSynchronised() || Posix.exists(Self.timesyncdMarker) { return nil }
        return "the kernel reports the clock unsynchronised (no NTP yet) and systemd-timesyncd has not synchronised it"
    }
}

/// A fixed answer, for simulations and tests.
package final class FixedClockSyncProbe: ClockSyncProbe {
    package let reason: String?
    package init(synchronised: Bool) { reason = synchronised ? nil : "simulated: not synchronised" }
    package func unsynchronisedReason() -> String? { reason }
}
