import Agent
import ENCore

/// Reads what a key server's listing says: the entries (index lines, days) naming its export files, oldest
/// first. Pure.
enum KeyServerListing {
    /// The lines of a Google `index.txt`: US-ASCII, one relative path per line. Blank lines and surrounding
    /// whitespace (a trailing CR) are dropped; nothing else is assumed about a line.
    static func indexLines(_ body: [UInt8]) -> [String] {
        String(decoding: body, as: UTF8.self).split(whereSeparator: { $0 == "\n" || $0 == "\r\n" }).compactMap { raw in
            let line = raw.trimmingSpaces
            return line.isEmpty ? nil : line
        }
    }

    /// The days of a Corona-Warn-App listing: a JSON array of `"YYYY-MM-DD"`. Entries that are not real days
    /// are refused, since one becomes part of a URL.
    static func days(_ body: [UInt8]) throws(ListingError) -> [String] {
        let document: JSONValue
        do { document = try JSONValue.parse(utf8: body) } catch { throw ListingError("day list is not JSON: \(error)") }
        guard case .array(let values) = document else {
            throw ListingError("day list is \(document.kindDescription), expected an array")
        }
        var days: [String] = []
        for value in values {
            guard case .string(let day) = value, UTCDay(isoDate: day) != nil else {
                throw ListingError("day list holds \(value), expected \"YYYY-MM-DD\"")
            }
            days.append(day)
        }
        return days.sorted()
    }

    struct ListingError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
