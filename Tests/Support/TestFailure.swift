/// A test's own failure with its words, for `throw` where `#require` does not fit.
public struct TestFailure: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
