/// The console could not be set up (a serial device that will not open, a socket path in the way);
/// the text is one line for a person.
package struct ConsoleError: Error, Hashable, Sendable, CustomStringConvertible {
    package let description: String

    init(_ description: String) {
        self.description = description
    }
}
