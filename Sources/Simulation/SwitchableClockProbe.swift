import Agent
import AgentBase

/// A clock-sync probe whose answer the scenario changes: NTP synchronising (or losing sync) mid-run.
final class SwitchableClockProbe: ClockSyncProbe {
    var synchronised: Bool
    init(synchronised: Bool) { self.synchronised = synchronised }
    func unsynchronisedReason() -> String? { synchronised ? nil : "simulation: not synchronised" }
}
