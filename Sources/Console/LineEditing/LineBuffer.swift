/// The text being edited and the cursor in it, in characters (grapheme clusters), so that an accented
/// letter or an emoji is inserted, deleted and stepped over whole.
struct LineBuffer: Hashable {
    private(set) var characters: [Character] = []
    /// Index in `characters` of the character after the cursor.
    private(set) var cursor = 0
    /// The UTF-8 size of the text, kept up to date so that the line limit costs nothing to check.
    private(set) var utf8Count = 0

    /// A grapheme cluster is not grown past this many scalars: a flood of combining marks from line
    /// noise would otherwise make each insertion slower than the last.
    private static let clusterScalarLimit = 16

    var text: String { String(characters) }
    var isEmpty: Bool { characters.isEmpty }

    init() {}

    init(_ text: String) {
        characters = Array(text)
        cursor = characters.count
        utf8Count = text.utf8.count
    }

    mutating func insert(_ scalar: Unicode.Scalar) {
        utf8Count += UTF8.width(scalar)
        // A combining mark (or the second half of a flag, a ZWJ sequence…) joins the character before it.
        if cursor > 0 {
            var joined = String(characters[cursor - 1])
            if joined.unicodeScalars.count < Self.clusterScalarLimit {
                joined.unicodeScalars.append(scalar)
                if joined.count == 1 {
                    characters[cursor - 1] = Character(joined)
                    return
                }
            }
        }
        characters.insert(Character(scalar), at: cursor)
        cursor += 1
    }

    mutating func insert(_ text: String) {
        for scalar in text.unicodeScalars { insert(scalar) }
    }

    mutating func backspace() {
        guard cursor > 0 else { return }
        remove(cursor - 1..<cursor)
    }

    mutating func deleteForward() {
        guard cursor < characters.count else { return }
        remove(cursor..<cursor + 1)
    }

    mutating func moveLeft() { cursor = max(cursor - 1, 0) }
    mutating func moveRight() { cursor = min(cursor + 1, characters.count) }
    mutating func moveHome() { cursor = 0 }
    mutating func moveEnd() { cursor = characters.count }

    /// To the start of the word before the cursor (skipping spaces first), like readline's Alt-b.
    mutating func moveWordLeft() { cursor = wordStart(before: cursor) }

    /// To the end of the word after the cursor, like readline's Alt-f.
    mutating func moveWordRight() {
        var index = cursor
        while index < characters.count, characters[index] == " " { index += 1 }
        while index < characters.count, characters[index] != " " { index += 1 }
        cursor = index
    }

    /// Ctrl-W: the word before the cursor and the spaces after it.
    mutating func deleteWordBackward() { remove(wordStart(before: cursor)..<cursor) }

    /// Ctrl-U: everything before the cursor.
    mutating func deleteToStart() { remove(0..<cursor) }

    /// Ctrl-K: everything from the cursor on.
    mutating func deleteToEnd() { remove(cursor..<characters.count) }

    /// Replaces the `count` characters before the cursor with `text` (Tab completion).
    mutating func replaceBeforeCursor(count: Int, with text: String) {
        remove(cursor - min(count, cursor)..<cursor)
        insert(text)
    }

    private mutating func remove(_ range: Range<Int>) {
        guard !range.isEmpty else { return }
        utf8Count -= characters[range].reduce(0) { $0 + $1.utf8.count }
        characters.removeSubrange(range)
        if cursor >= range.upperBound {
            cursor -= range.count
        } else if cursor > range.lowerBound {
            cursor = range.lowerBound
        }
    }

    private func wordStart(before index: Int) -> Int {
        var start = index
        while start > 0, characters[start - 1] == " " { start -= 1 }
        while start > 0, characters[start - 1] != " " { start -= 1 }
        return start
    }
}
