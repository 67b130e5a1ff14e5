extension UTCDay {
    /// The day an ISO-8601 date (`2020-04-02`) names, or nil for anything else, impossible dates included.
    public init?(isoDate text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              parts.allSatisfy({ $0.utf8.allSatisfy { (0x30...0x39).contains($0) } }),
              let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]) else { return nil }
        var date = UTCDateTime(unixSeconds: 0)
        (date.year, date.month, date.day) = (year, month, day)
        let candidate = UTCDay(unixSeconds: date.unixSeconds)
        // 2021-02-30 would silently become March 2nd; only a date that round-trips is real.
        guard candidate.description == text else { return nil }
        self = candidate
    }
}
