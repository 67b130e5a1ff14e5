import Agent
import AgentBase

/// A clock-sync probe whose answer the scenario changes: NTP synchronising (or losing sync) mid-run.
public final class SwitchableClockProbe: ClockSyncProbe {
    public var synchronised: Bool
    public init(synchronised: Bool) { self.synchronised = synchronised }
    public func unsynchronisedReason() -> String? { synchronised ? nil : "simulation: not synchronised" }
}
