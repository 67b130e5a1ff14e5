extension Array where Element: CustomStringConvertible {
    /// "[50, 70]": the list as the standard build's interpolation of an array writes it, for messages that
    /// quote a configuration's values back. Spelled out because Embedded Swift's arrays are not
    /// `CustomStringConvertible`, and interpolating one there prints a placeholder.
    public var listText: String {
        "[" + map { $0.description }.joined(separator: ", ") + "]"
    }
}
