/// The RSSIs of one source summarised as `radio calibrate` reports them: how many, their median, and their
/// spread (the interquartile range, which a few reflected or shadowed reports do not widen).
package struct RSSIStatistics: Equatable, Sendable {
    package var count: Int
    /// dBm; the mean of the middle two for an even count.
    package var median: Double
    package var lowerQuartile: Int8
    package var upperQuartile: Int8
    package var minimum: Int8
    package var maximum: Int8

    /// `rssis` must not be empty.
    package init(_ rssis: [Int8]) {
        precondition(!rssis.isEmpty, "statistics of no RSSI")
        let sorted = rssis.sorted()
        let n = sorted.count
        count = n
        median = n % 2 == 1 ? Double(sorted[n / 2]) : (Double(sorted[n / 2 - 1]) + Double(sorted[n / 2])) / 2
        lowerQuartile = sorted[(n - 1) / 4]
        upperQuartile = sorted[3 * (n - 1) / 4]
        minimum = sorted[0]
        maximum = sorted[n - 1]
    }

    /// Upper minus lower quartile, dB.
    package var spread: Int { Int(upperQuartile) - Int(lowerQuartile) }

    /// A median as a number's text, "-52" or "-52.5", without printing a Double (Embedded Swift, which the board
    /// build uses, has no floating-point description): a median of whole dBm readings is a whole or half dBm.
    package static func text(_ value: Double) -> String {
        let halves = Int((value * 2).rounded())
        let magnitude = abs(halves)
        return (halves < 0 ? "-" : "") + "\(magnitude / 2)" + (magnitude % 2 == 1 ? ".5" : "")
    }

    /// `text(value)` in dBm: "-52 dBm", "-52.5 dBm".
    package static func dB(_ value: Double) -> String { text(value) + " dBm" }
}
