import Foundation
import Testing
@testable import ENCore

@Suite struct UTCDateTimeTests {
    @Test func knownInstants() {
        #expect(UTCDateTime(unixSeconds: 0).description == "1970-01-01T00:00:00Z")
        #expect(UTCDateTime(unixSeconds: 1585785600).description == "2020-04-02T00:00:00Z")
        #expect(UTCDateTime(unixSeconds: 951_782_400).description == "2000-02-29T00:00:00Z")
        #expect(UTCDateTime(unixSeconds: 4_107_542_399).description == "2100-02-28T23:59:59Z")
        #expect(UTCDateTime(unixSeconds: -1).description == "1969-12-31T23:59:59Z")
    }

    /// An export's 64-bit timestamps are untrusted: beyond years 0…9999 they read as the nearest end, the
    /// same on every CPU (a year past 2^31 would trap in a 32-bit board's Int).
    @Test func instantsBeyondFourDigitYearsReadAsTheNearestEnd() {
        #expect(UTCDateTime(unixSeconds: 253_402_300_799).description == "9999-12-31T23:59:59Z")
        #expect(UTCDateTime(unixSeconds: Int64.max).description == "9999-12-31T23:59:59Z")
        #expect(UTCDateTime(unixSeconds: Int64(clamping: UInt64.max)).description == "9999-12-31T23:59:59Z")
        #expect(UTCDateTime(unixSeconds: -62_167_219_200).description == "0000-01-01T00:00:00Z")
        #expect(UTCDateTime(unixSeconds: Int64.min).description == "0000-01-01T00:00:00Z")
    }

    /// Against Foundation's calendar (tests may use Foundation; the agent may not) over many random instants.
    @Test func agreesWithFoundationAndRoundTrips() {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let t = Int64.random(in: -2_000_000_000...8_000_000_000, using: &rng)
            let ours = UTCDateTime(unixSeconds: t)
            let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second],
                                            from: Date(timeIntervalSince1970: TimeInterval(t)))
            let expected: [Int] = [c.year!, c.month!, c.day!, c.hour!, c.minute!, c.second!]
            let actual: [Int] = [ours.year, ours.month, ours.day, ours.hour, ours.minute, ours.second]
            #expect(actual == expected, "t=\(t)")
            #expect(ours.unixSeconds == t)
        }
    }
}
