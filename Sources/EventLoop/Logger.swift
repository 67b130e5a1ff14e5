/// One-line log messages with a level, handed to a sink (stderr in the agent, an array in tests).
///
/// Messages are autoclosures: a debug line under `info` costs nothing. Services take a `Logger` value
/// rather than reaching for a global, so each test sees exactly the lines its own agent wrote.
public struct Logger {
    public enum Level: Int, Comparable, Sendable, CaseIterable, CustomStringConvertible {
        case error, warn, info, debug
        public static func < (a: Level, b: Level) -> Bool { a.rawValue < b.rawValue }
        public var description: String {
            switch self {
            case .error: "error"
            case .warn: "warn"
            case .info: "info"
            case .debug: "debug"
            }
        }
        public init?(name: String) {
            guard let level = Level.allCases.first(where: { $0.description == name }) else { return nil }
            self = level
        }
    }

    public var level: Level
    private let sink: (Level, String) -> Void

    public init(level: Level, sink: @escaping (Level, String) -> Void) {
        self.level = level
        self.sink = sink
    }

    /// A logger that drops everything.
    public static var silent: Logger { Logger(level: .error) { _, _ in } }

    public func isEnabled(_ l: Level) -> Bool { l <= level }
    public func log(_ l: Level, _ message: @autoclosure () -> String) { if l <= level { sink(l, message()) } }
    public func error(_ message: @autoclosure () -> String) { log(.error, message()) }
    public func warn(_ message: @autoclosure () -> String) { log(.warn, message()) }
    public func info(_ message: @autoclosure () -> String) { log(.info, message()) }
    public func debug(_ message: @autoclosure () -> String) { log(.debug, message()) }

    /// A line that names its event: the message, then ` event=NAME` (see `LogEvent`).
    public func log(_ l: Level, _ event: LogEvent, _ message: @autoclosure () -> String) {
        if l <= level { sink(l, message() + " event=" + event.name) }
    }
    public func error(_ event: LogEvent, _ message: @autoclosure () -> String) { log(.error, event, message()) }
    public func warn(_ event: LogEvent, _ message: @autoclosure () -> String) { log(.warn, event, message()) }
    public func info(_ event: LogEvent, _ message: @autoclosure () -> String) { log(.info, event, message()) }
}
