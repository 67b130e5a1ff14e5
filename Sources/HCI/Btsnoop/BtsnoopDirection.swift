/// Which way a captured packet went, seen from the host.
public enum BtsnoopDirection: Hashable, Sendable {
    /// Host to controller: commands and outgoing data.
    case sent
    /// Controller to host: events and incoming data.
    case received
}
