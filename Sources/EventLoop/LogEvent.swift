/// A stable name for a log line that an operator alerts on or searches for. The words of a line may be
/// improved from one release to the next; its event name stays, so a journal query
/// (`journalctl -u enbeacon -g event=controller_lost`), a log shipper's rule or a runbook can rely on it.
///
/// Each module names its own events beside the code that logs them (`extension LogEvent { static let … }`);
/// README's table lists them all. The name is lower case with underscores and never carries data.
public struct LogEvent: Hashable, Sendable, CustomStringConvertible {
    public let name: String

    public init(_ name: String) { self.name = name }

    public var description: String { name }
}
