// Key sync's listings (Sources/KeyDownload/KeyServerListing.swift): a key server's index.txt and a
// Corona-Warn-App day list are read before anything about the server can be trusted. The input is the
// listing's body, read with the default limits and with small ones (so that a few KiB reach every limit),
// without a cursor, with the cursor on a listed line and with one on a line no longer listed. Checked
// against a plain model of the rules:
// - more lines than sync.max_index_lines is refused, anything else is read; the line count, the pending
//   lines after the cursor (at most sync.max_files), the deferred ones and "cursor lost" are what the
//   rules say;
// - a pending entry without a problem is a relative path of printable ASCII, no longer than
//   sync.max_line_bytes, with no '..' segment: safe to append to the base URL;
// - the cursor a sync saves after processing an entry (written to its file and read back) finds that line
//   again in the same index, so the next sync does not start over;
// - a day list yields sorted real days (YYYY-MM-DD, nothing else reaches a URL), reads back the same from
//   its own JSON, and a cursor of processed days survives its file.
import ENCore
@testable import KeyDownload

func fuzzSetUp() {}

private func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0D }

/// The non-blank lines of `body`, trimmed, as the rules define them.
private func modelLines(_ body: [UInt8]) -> [ArraySlice<UInt8>] {
    body.split(separator: 0x0A, omittingEmptySubsequences: false).compactMap { line in
        var line = line
        while let first = line.first, isSpace(first) { line = line.dropFirst() }
        while let last = line.last, isSpace(last) { line = line.dropLast() }
        return line.isEmpty ? nil : line
    }
}

private func isSafePath(_ line: ArraySlice<UInt8>, _ limits: KeySyncLimits) -> Bool {
    line.count <= limits.maxLineBytes && line.allSatisfy { (0x21...0x7E).contains($0) } && line.first != 0x2F
        && !line.split(separator: 0x2F, omittingEmptySubsequences: false).contains { $0.elementsEqual([0x2E, 0x2E]) }
}

/// Whether the cursor names `line`: by its entry name, its first max_line_bytes with bytes that are not UTF-8
/// as U+FFFD.
private func names(_ cursor: [UInt8], _ line: ArraySlice<UInt8>, _ limits: KeySyncLimits) -> Bool {
    let identity = line.prefix(limits.maxLineBytes)
    if identity.elementsEqual(cursor) { return true }
    return identity.contains { $0 >= 0x80 } && String(decoding: identity, as: UTF8.self).utf8.elementsEqual(cursor)
}

private func checkIndex(_ body: [UInt8], _ lines: [ArraySlice<UInt8>], cursor: String?, limits: KeySyncLimits)
    -> KeyServerListing.Index? {
    let index: KeyServerListing.Index
    do {
        index = try KeyServerListing.index(body, after: cursor, limits: limits)
    } catch {
        invariant(lines.count > limits.maxIndexLines, "an index of \(lines.count) lines refused: \(error)")
        return nil
    }
    invariant(lines.count <= limits.maxIndexLines, "an index of \(lines.count) lines accepted, limit \(limits.maxIndexLines)")
    invariant(index.lineCount == lines.count, "\(index.lineCount) lines counted, \(lines.count) listed")
    let identity = cursor.map { Array($0.utf8) }
    let skip = identity.flatMap { id in lines.lastIndex { names(id, $0, limits) } }.map { $0 + 1 } ?? 0
    invariant(index.cursorLost == (cursor != nil && skip == 0), "cursor lost \(index.cursorLost), found at \(skip)")
    invariant(index.pending.count == min(limits.maxFiles, lines.count - skip), "\(index.pending.count) pending")
    invariant(index.deferred == lines.count - skip - index.pending.count, "\(index.deferred) deferred")
    for (entry, line) in zip(index.pending, lines[skip...]) {
        invariant(entry.name == String(decoding: line.prefix(limits.maxLineBytes), as: UTF8.self), "entry name differs")
        invariant((entry.problem == nil) == isSafePath(line, limits),
                  "line \(Array(line)) has problem \(entry.problem ?? "none")")
        if entry.problem == nil {
            invariant(entry.name.utf8.elementsEqual(line), "a safe entry's name is not its line")
        }
    }
    return index
}

/// What a sync does after processing `entry`: commit it to the cursor, save the cursor, load it again.
private func savedCursor(after entry: String) -> SyncCursor {
    var cursor = SyncCursor(server: "https://keys.example/index.txt")
    cursor.commit([entry], indexed: true, listed: [])
    cursor.lastSuccess = 1_700_000_000
    let loaded = SyncCursor(text: cursor.text)
    invariant(loaded == cursor, "the cursor after \(Array(entry.utf8)) does not survive its file")
    return loaded ?? cursor
}

private func checkIndexes(_ body: [UInt8], _ lines: [ArraySlice<UInt8>], limits: KeySyncLimits,
                          random: inout InputRandom) {
    guard let first = checkIndex(body, lines, cursor: nil, limits: limits) else { return }
    _ = checkIndex(body, lines, cursor: "v1/no-longer-listed.zip", limits: limits)
    guard !first.pending.isEmpty else { return }
    // The next sync, from the cursor saved after a pending entry (the last, or another).
    let pick = random.below(2) == 0 ? first.pending.count - 1 : random.below(first.pending.count)
    let entry = first.pending[pick]
    let cursor = savedCursor(after: entry.name)
    guard let next = checkIndex(body, lines, cursor: cursor.lastLine, limits: limits) else { return }
    invariant(!next.cursorLost, "the saved cursor \(Array(entry.name.utf8)) is not found in the index it came from")
}

private func checkDays(_ body: [UInt8]) {
    let days: [String]
    do { days = try KeyServerListing.days(body) } catch {
        _ = error.description
        return
    }
    invariant(days == days.sorted(), "days not sorted")
    for day in days {
        invariant(day.utf8.count == 10 && day.utf8.enumerated().allSatisfy { i, b in
            i == 4 || i == 7 ? b == 0x2D : (0x30...0x39).contains(b)
        }, "day \(Array(day.utf8)) is not YYYY-MM-DD")
        invariant(UTCDay(isoDate: day)?.description == day, "day \(day) is not a real day")
    }
    let json = "[" + days.map { "\"\($0)\"" }.joined(separator: ",") + "]"
    invariant((try? KeyServerListing.days(Array(json.utf8))) == days, "the days do not read back from their JSON")
    var cursor = SyncCursor(server: "https://cwa.example")
    cursor.commit(Array(days.prefix(3)), indexed: false, listed: days)
    invariant(SyncCursor(text: cursor.text) == cursor, "a cursor of processed days does not survive its file")
    invariant(Set(cursor.pendingDays(in: days)).isDisjoint(with: cursor.processedDays), "a processed day is pending")
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let body = inputBytes(data, size)
    var random = InputRandom(body)
    let lines = modelLines(body)
    checkIndexes(body, lines, limits: KeySyncLimits(), random: &random)
    var small = KeySyncLimits()
    small.maxIndexLines = 1 + random.below(64)
    small.maxLineBytes = 16 + random.below(48)
    small.maxFiles = 1 + random.below(16)
    checkIndexes(body, lines, limits: small, random: &random)
    if body.first == UInt8(ascii: "[") || random.below(8) == 0 { checkDays(body) }
    return 0
}

// MARK: Seeds

func fuzzSeeds() -> [Seed] {
    let google = (0..<8).map { "exposureKeyExport-US/\(1_620_000_000 + $0 * 86_400)-\(1_620_086_400 + $0 * 86_400)-00001.zip" }
    return [
        Seed("index", text: google.joined(separator: "\n") + "\n"),
        Seed("index-crlf", text: google.prefix(4).joined(separator: "\r\n") + "\r\n\r\n"),
        Seed("index-malformed", text: "v1/a.zip\n  v1/b.zip \t\n/etc/passwd\nv1/../c.zip\nv1/with space.zip\n"
             + "v1/ü.zip\n" + String(repeating: "x", count: 70) + "\n\nv1/last.zip"),
        Seed("days", text: "[\"2021-05-01\",\"2021-04-30\",\"2021-05-02\"]"),
        Seed("days-bad", text: "[\"2021-02-30\",\"2021-5-1\",17,[\"2021-05-01\"],{\"a\":null}]"),
        Seed("days-nested", text: String(repeating: "[", count: 40) + String(repeating: "]", count: 40)),
    ]
}
