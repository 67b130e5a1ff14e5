/// Reading a time an operator types (`time set 2026-11-22T14:05:00Z`): the ISO-8601 / RFC 3339 forms
/// `YYYY-MM-DDTHH:MM[:SS[.fraction]]` followed by `Z` or `±HH:MM` (a space may stand for the `T`).
///
/// The zone is required: a badge's keys are per UTC day, and a local time taken for UTC would put the
/// badge's RPIs hours off, where no phone could ever match them.
public enum ISO8601Time {
    public enum ParseError: Error, Equatable, CustomStringConvertible {
        case malformed
        case missingZone
        case outOfRange(String)

        public var description: String {
            switch self {
            case .malformed: "expected an ISO-8601 time such as 2026-11-22T14:05:00Z"
            case .missingZone: "give the time zone: Z for UTC, or an offset such as +01:00"
            case .outOfRange(let field): "\(field) is out of range"
            }
        }
    }

    /// Unix seconds of `text` (a fraction of a second is dropped).
    public static func unixSeconds(_ text: String) throws(ParseError) -> Int64 {
        var reader = Reader(Array(text.utf8))
        guard let year = reader.number(digits: 4), reader.take(UInt8(ascii: "-")),
              let month = reader.number(digits: 2), reader.take(UInt8(ascii: "-")),
              let day = reader.number(digits: 2),
              reader.take(UInt8(ascii: "T")) || reader.take(UInt8(ascii: "t")) || reader.take(UInt8(ascii: " ")),
              let hour = reader.number(digits: 2), reader.take(UInt8(ascii: ":")),
              let minute = reader.number(digits: 2) else { throw .malformed }
        var second = 0
        if reader.take(UInt8(ascii: ":")) {
            guard let s = reader.number(digits: 2) else { throw .malformed }
            second = s
            if reader.take(UInt8(ascii: ".")) || reader.take(UInt8(ascii: ",")) {
                guard reader.skipDigits() > 0 else { throw .malformed }
            }
        }
        let offsetSeconds: Int
        if reader.atEnd {
            throw .missingZone
        } else if reader.take(UInt8(ascii: "Z")) || reader.take(UInt8(ascii: "z")) {
            offsetSeconds = 0
        } else {
            let sign: Int
            if reader.take(UInt8(ascii: "+")) { sign = 1 } else if reader.take(UInt8(ascii: "-")) { sign = -1 } else { throw .malformed }
            guard let hours = reader.number(digits: 2) else { throw .malformed }
            _ = reader.take(UInt8(ascii: ":"))
            guard let minutes = reader.number(digits: 2) else { throw .malformed }
            guard hours <= 14, minutes < 60 else { throw .outOfRange("the offset") }
            offsetSeconds = sign * (hours * 3600 + minutes * 60)
        }
        guard reader.atEnd else { throw .malformed }
        guard (1...12).contains(month) else { throw .outOfRange("the month") }
        guard (1...daysIn(month: month, year: year)).contains(day) else { throw .outOfRange("the day") }
        guard hour < 24 else { throw .outOfRange("the hour") }
        guard minute < 60 else { throw .outOfRange("the minute") }
        // 60 would be a leap second, which Unix time does not count.
        guard second < 60 else { throw .outOfRange("the second") }
        let local = UTCDateTime.days(year: year, month: month, day: day) * 86_400 + Int64(hour * 3600 + minute * 60 + second)
        return local - Int64(offsetSeconds)
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    private struct Reader {
        let bytes: [UInt8]
        var index = 0

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        var atEnd: Bool { index == bytes.count }

        mutating func take(_ byte: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }

        /// Exactly `digits` decimal digits.
        mutating func number(digits: Int) -> Int? {
            guard index + digits <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[index..<index + digits] {
                guard (0x30...0x39).contains(byte) else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            index += digits
            return value
        }

        mutating func skipDigits() -> Int {
            let start = index
            while index < bytes.count, (0x30...0x39).contains(bytes[index]) { index += 1 }
            return index - start
        }
    }
}
