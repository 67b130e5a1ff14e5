/// A calendar date and time in UTC, computed from Unix seconds without Foundation: log lines, the console
/// and export file names need ISO-8601 text, and the agent must not pull in a 50 MB ICU for it.
public struct UTCDateTime: Equatable, Sendable, CustomStringConvertible {
    public var year: Int
    public var month: Int
    public var day: Int
    public var hour: Int
    public var minute: Int
    public var second: Int

    /// 0000-01-01T00:00:00Z and 9999-12-31T23:59:59Z: the four-digit years of ISO-8601 text.
    static let earliestUnixSeconds: Int64 = -62_167_219_200
    static let latestUnixSeconds: Int64 = 253_402_300_799

    /// Instants beyond years 0…9999 read as the nearest end: an export's 64-bit timestamps are untrusted, and
    /// their year would not fit a 32-bit board's Int (`Int(year)` would trap), so every CPU shows the same.
    public init(unixSeconds unclamped: Int64) {
        let unixSeconds = min(max(unclamped, Self.earliestUnixSeconds), Self.latestUnixSeconds)
        let days = unixSeconds >= 0 ? unixSeconds / 86_400 : (unixSeconds - 86_399) / 86_400
        let secondsOfDay = Int(unixSeconds - days * 86_400)
        (year, month, day) = Self.civil(fromDays: days)
        hour = secondsOfDay / 3600
        minute = secondsOfDay % 3600 / 60
        second = secondsOfDay % 60
    }

    /// Proleptic Gregorian date of a day count since 1970-01-01, using 400-year eras of 146,097 days.
    static func civil(fromDays days: Int64) -> (Int, Int, Int) {
        let shifted = days + 719_468  // days from 0000-03-01, so leap days fall at the end of a year
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153  // 0 = March
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (Int(year), Int(month), Int(day))
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (the inverse of `civil`).
    static func days(year: Int, month: Int, day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let m = Int64(month)
        let dayOfYear = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    public var unixSeconds: Int64 {
        Self.days(year: year, month: month, day: day) * 86_400 + Int64(hour * 3600 + minute * 60 + second)
    }

    /// `2020-04-02T00:00:00Z`
    public var description: String {
        "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(hour, 2)):\(pad(minute, 2)):\(pad(second, 2))Z"
    }

    /// `2020-04-02`
    public var date: String { "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))" }

    private func pad(_ n: Int, _ width: Int) -> String {
        let s = String(n)
        return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
    }
}
