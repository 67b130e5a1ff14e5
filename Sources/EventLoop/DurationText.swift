extension Duration {
    /// The duration as a person reads it in a log line or a console answer: "250 ms", "1.5 s", "30 s",
    /// "13 min 12 s", "4 h", "2 h 5 min". Whole units, tenths of a second only under a minute.
    ///
    /// The project's own because the standard library's `description` ("30.0 seconds") does not exist in the
    /// board build: Embedded Swift has no `Duration: CustomStringConvertible`, and interpolating a duration
    /// there prints a placeholder instead of the value.
    public var humanReadable: String {
        let nanoseconds = nanosecondsValue
        let sign = nanoseconds < 0 ? "-" : ""
        let magnitude = nanoseconds.magnitude
        let milliseconds = magnitude / 1_000_000
        if milliseconds < 1_000 { return "\(sign)\(milliseconds) ms" }
        let tenths = magnitude / 100_000_000
        if tenths < 600 {
            return tenths % 10 == 0 ? "\(sign)\(tenths / 10) s" : "\(sign)\(tenths / 10).\(tenths % 10) s"
        }
        let seconds = magnitude / 1_000_000_000
        if seconds < 3_600 {
            return seconds % 60 == 0 ? "\(sign)\(seconds / 60) min" : "\(sign)\(seconds / 60) min \(seconds % 60) s"
        }
        let minutes = seconds / 60
        return minutes % 60 == 0 ? "\(sign)\(minutes / 60) h" : "\(sign)\(minutes / 60) h \(minutes % 60) min"
    }
}
