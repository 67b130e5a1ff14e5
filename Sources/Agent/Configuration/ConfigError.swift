/// A line of a `key = value` file that cannot be read, or holds a value its key refuses.
public struct ConfigError: Error, Equatable, CustomStringConvertible {
    public var line: Int
    public var message: String
    public init(line: Int, _ message: String) {
        self.line = line
        self.message = message
    }
    public var description: String { "line \(line): \(message)" }
}
