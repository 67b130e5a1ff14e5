/// The MS-DOS date and time a zip header carries (local time in the format; written here as UTC, which is
/// what an export's timestamps are). Two-second resolution; years before 1980 clamp to 1980-01-01.
struct DOSTimestamp: Equatable {
    var time: UInt16
    var date: UInt16

    init(unixSeconds: Int64) {
        let earliest = UTCDateTime(year: 1980, month: 1, day: 1).unixSeconds
        let latest = UTCDateTime(year: 2107, month: 12, day: 31).unixSeconds
        let t = UTCDateTime(unixSeconds: min(max(unixSeconds, earliest), latest))
        time = UInt16(t.hour << 11 | t.minute << 5 | t.second / 2)
        date = UInt16((t.year - 1980) << 9 | t.month << 5 | t.day)
    }
}

private extension UTCDateTime {
    init(year: Int, month: Int, day: Int) {
        self.init(unixSeconds: UTCDateTime.days(year: year, month: month, day: day) * 86_400)
    }
}
