extension StringProtocol {
    /// Without leading and trailing spaces, tabs and carriage returns (Foundation-free): configuration
    /// lines, index lines and console input all come from people's editors and other systems' line ends.
    public var trimmingSpaces: String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[first...last])
    }
}
