import ENCore

/// Reads what a key server's listing says: the entries (index lines, days) naming its export files, oldest
/// first. Pure, and bounded: an index is walked in place and only the lines still to download become
/// strings, so a hostile index costs its (capped) bytes and nothing per line.
enum KeyServerListing {
    /// One listing entry still to process.
    struct Entry: Equatable {
        /// The line as the cursor records it (cut to `maxLineBytes` when longer).
        var name: String
        /// Why the line names no export this badge will fetch (too long, not a relative path); nil when fine.
        var problem: String? = nil
    }

    /// What an index says, seen from the cursor.
    struct Index: Equatable {
        /// Lines in the index (blank ones not counted).
        var lineCount: Int
        /// The lines after the cursor, in order, at most `maxFiles` of them.
        var pending: [Entry]
        /// Lines after the cursor beyond `pending`: left for the next run.
        var deferred: Int
        /// The cursor's line is no longer listed (aged out, or the server started over), so every line counts
        /// as new: downloading again costs bandwidth, while guessing which lines are newer could skip keys.
        /// Exposures are not duplicated either way.
        var cursorLost: Bool
    }

    /// A Google `index.txt`: US-ASCII, one relative path per line, oldest first. Blank lines and surrounding
    /// whitespace (a trailing CR) are dropped. Refused whole when it has more than `maxIndexLines` lines; a
    /// line that is longer than `maxLineBytes`, has bytes outside printable ASCII or spaces, starts with '/',
    /// or has a '..' segment is kept as an entry with a `problem`, so that it is skipped (and the cursor moves
    /// past it) rather than fetched.
    static func index(_ body: [UInt8], after lastLine: String?, limits: KeySyncLimits) throws(ListingError) -> Index {
        let result: Result<Index, ListingError> = body.withUnsafeBufferPointer { raw in
            Result { () throws(ListingError) in try index(raw, after: lastLine, limits: limits) }
        }
        return try result.get()
    }

    private static func index(_ body: UnsafeBufferPointer<UInt8>, after lastLine: String?,
                              limits: KeySyncLimits) throws(ListingError) -> Index {
        let cursor = lastLine.map { Array($0.utf8) }
        // Pass 1: count the lines and find the last one the cursor names, without keeping any.
        var count = 0
        var cursorAt: Int?
        forEachLine(body) { line in
            count += 1
            if let cursor, isCursor(line, cursor, limits) { cursorAt = count }
            return count <= limits.maxIndexLines
        }
        guard count <= limits.maxIndexLines else {
            throw ListingError("index.txt has more than \(limits.maxIndexLines) lines (\(limits.keyName(.syncMaxIndexLines)))")
        }
        // Pass 2: the lines after it, up to the limit.
        let skip = cursorAt ?? 0
        var pending: [Entry] = []
        var number = 0
        forEachLine(body) { line in
            number += 1
            if number > skip && pending.count < limits.maxFiles { pending.append(entry(line, limits)) }
            return true
        }
        return Index(lineCount: count, pending: pending, deferred: count - skip - pending.count,
                     cursorLost: cursor != nil && cursorAt == nil)
    }

    /// Calls `body` with each non-blank line, trimmed, until it returns false.
    private static func forEachLine(_ body: UnsafeBufferPointer<UInt8>, _ visit: (Slice<UnsafeBufferPointer<UInt8>>) -> Bool) {
        var start = 0
        while start < body.count {
            var end = start
            while end < body.count && body[end] != UInt8(ascii: "\n") { end += 1 }
            var line = body[start..<end]
            while let first = line.first, isSpace(first) { line = line.dropFirst() }
            while let last = line.last, isSpace(last) { line = line.dropLast() }
            if !line.isEmpty && !visit(line) { return }
            start = end + 1
        }
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\r")
    }

    /// The bytes the cursor records for a line: all of it, or its first `maxLineBytes`.
    private static func identity(_ line: Slice<UnsafeBufferPointer<UInt8>>, _ limits: KeySyncLimits)
        -> Slice<UnsafeBufferPointer<UInt8>> {
        line.prefix(limits.maxLineBytes)
    }

    /// Whether `line` is the one the cursor names. The cursor holds the entry's name, in which bytes that are not
    /// UTF-8 became U+FFFD, so such a line is compared the same way; other lines cost no decoding.
    private static func isCursor(_ line: Slice<UnsafeBufferPointer<UInt8>>, _ cursor: [UInt8], _ limits: KeySyncLimits)
        -> Bool {
        let identity = identity(line, limits)
        if identity.elementsEqual(cursor) { return true }
        guard identity.contains(where: { $0 >= 0x80 }) else { return false }
        return String(decoding: identity, as: UTF8.self).utf8.elementsEqual(cursor)
    }

    private static func entry(_ line: Slice<UnsafeBufferPointer<UInt8>>, _ limits: KeySyncLimits) -> Entry {
        let name = String(decoding: identity(line, limits), as: UTF8.self)
        if line.count > limits.maxLineBytes {
            return Entry(name: name, problem: "index line of \(line.count) bytes, longer than the "
                         + "\(limits.maxLineBytes) allowed (\(limits.keyName(.syncMaxLineBytes)))")
        }
        let printable = line.allSatisfy { (0x21...0x7E).contains($0) }
        let segments = line.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        let climbs = segments.contains { $0.elementsEqual([UInt8(ascii: "."), UInt8(ascii: ".")]) }
        guard printable, line.first != UInt8(ascii: "/"), !climbs else {
            return Entry(name: name, problem: "malformed index line (a relative path of printable ASCII without "
                         + "spaces, a leading '/' or '..' is expected)")
        }
        return Entry(name: name, problem: nil)
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
                let held = if case .string(let text) = value { JSONText.quoted(text) } else { value.kindDescription }
                throw ListingError("day list holds \(held), expected \"YYYY-MM-DD\"")
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
