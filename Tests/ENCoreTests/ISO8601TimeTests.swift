import ENCore
import Testing

struct ISO8601TimeTests {
    @Test(arguments: [
        ("2026-11-22T14:05:00Z", Int64(1_795_356_300)),
        ("2026-11-22t14:05:00z", 1_795_356_300),
        ("2026-11-22 14:05:00Z", 1_795_356_300),
        ("2026-11-22T14:05Z", 1_795_356_300),
        ("2026-11-22T14:05:00.999Z", 1_795_356_300),
        ("2026-11-22T15:05:00+01:00", 1_795_356_300),
        ("2026-11-22T15:05:00+0100", 1_795_356_300),
        ("2026-11-22T09:35:00-04:30", 1_795_356_300),
        ("2026-11-23T00:30:00+10:25", 1_795_356_300),
        ("2024-02-29T00:00:00Z", 1_709_164_800),
        ("1970-01-01T00:00:00Z", 0),
    ])
    func acceptedForms(text: String, unix: Int64) throws {
        #expect(try ISO8601Time.unixSeconds(text) == unix)
        // The printed form reads back to the same instant.
        #expect(try ISO8601Time.unixSeconds(UTCDateTime(unixSeconds: unix).description) == unix)
    }

    @Test(arguments: [
        ("2026-11-22T14:05:00", ISO8601Time.ParseError.missingZone),
        ("2026-11-22 14:05", .missingZone),
        ("2026-11-22", .malformed),
        ("22/11/2026 14:05Z", .malformed),
        ("2026-11-22T14:05:00ZZ", .malformed),
        ("2026-11-22T14:05:00+1", .malformed),
        ("2026-11-22T14:5:00Z", .malformed),
        ("2026-11-22T14:05:00.Z", .malformed),
        ("", .malformed),
        ("now", .malformed),
        ("2026-13-01T00:00:00Z", .outOfRange("the month")),
        ("2026-00-01T00:00:00Z", .outOfRange("the month")),
        ("2025-02-29T00:00:00Z", .outOfRange("the day")),
        ("2100-02-29T00:00:00Z", .outOfRange("the day")),
        ("2026-04-31T00:00:00Z", .outOfRange("the day")),
        ("2026-11-22T24:00:00Z", .outOfRange("the hour")),
        ("2026-11-22T23:60:00Z", .outOfRange("the minute")),
        ("2026-12-31T23:59:60Z", .outOfRange("the second")),
        ("2026-11-22T14:05:00+15:00", .outOfRange("the offset")),
    ])
    func refusedForms(text: String, error: ISO8601Time.ParseError) {
        #expect(throws: error) { try ISO8601Time.unixSeconds(text) }
    }
}
