/// How the services the agent wires call back into it: they hold this link, not the agent, and `Agent.stop`
/// cuts it. That one cut ends every cycle between the agent and its services (radio, clock, scanner, notifier,
/// indicator, key share), so a stopped agent is released with its store and lock, with no weak reference
/// (the board build, Embedded Swift, has none).
final class AgentLink {
    private(set) var agent: Agent?

    init() {}

    func connect(_ agent: Agent) { self.agent = agent }

    /// After this every callback through the link does nothing.
    func cut() { agent = nil }
}
