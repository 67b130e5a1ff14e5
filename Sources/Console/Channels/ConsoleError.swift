/// The console could not be set up (a serial device that will not open, a socket path in the way);
/// the text is one line for a person.
public struct ConsoleError: Error, Hashable, Sendable, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}
