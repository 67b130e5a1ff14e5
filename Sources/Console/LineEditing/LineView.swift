/// Draws the line being edited on one terminal row, scrolling sideways when it is wider than the
/// row: a wrapped line cannot be redrawn reliably without knowing the terminal's exact geometry,
/// which a serial console never reports.
///
/// It remembers what it last drew, so that typing at the end of the line (and pasting) echoes just
/// the new characters instead of redrawing the row: at 115200 baud every byte counts.
struct LineView {
    private struct Drawn: Hashable {
        var prompt: String
        var start: Int
        var visible: [Character]
        var cursorColumn: Int
    }

    /// What the terminal shows, as far as this view knows; nil forces a full redraw.
    private var drawn: Drawn?
    /// The first character shown when the line is scrolled.
    private var start = 0

    /// Forgets what is on screen, after anything else was written to the terminal.
    mutating func invalidate() { drawn = nil }

    /// Bytes that make the row show `prompt` and `line` with the cursor in place.
    mutating func render(prompt: String, line: LineBuffer, width: Int) -> [UInt8] {
        let characters = line.characters
        let cursor = line.cursor
        let promptWidth = DisplayWidth.of(prompt)
        // The last column stays empty: writing into it makes some terminals wrap early.
        let room = max(width - promptWidth - 1, 10)
        if DisplayWidth.of(characters) <= room {
            start = 0
        } else {
            start = min(start, cursor)
            var beforeCursor = DisplayWidth.of(characters[start..<cursor])
            while beforeCursor > room {
                beforeCursor -= DisplayWidth.of(characters[start])
                start += 1
            }
        }
        var visible: [Character] = []
        var visibleWidth = 0
        for character in characters[start...] {
            let width = DisplayWidth.of(character)
            if visibleWidth + width > room { break }
            visible.append(character)
            visibleWidth += width
        }
        let cursorColumn = promptWidth + DisplayWidth.of(characters[start..<cursor])
        let next = Drawn(prompt: prompt, start: start, visible: visible, cursorColumn: cursorColumn)
        defer { drawn = next }

        if let drawn, drawn == next { return [] }
        if let drawn, drawn.prompt == prompt, drawn.start == start,
           drawn.cursorColumn == promptWidth + DisplayWidth.of(drawn.visible),
           cursorColumn == promptWidth + visibleWidth,
           visible.count > drawn.visible.count, visible.starts(with: drawn.visible) {
            return Array(String(visible[drawn.visible.count...]).utf8)
        }
        var bytes = Array("\r\(prompt)\(String(visible))\u{1B}[K".utf8)
        let back = promptWidth + visibleWidth - cursorColumn
        if back > 0 { bytes += Array("\u{1B}[\(back)D".utf8) }
        return bytes
    }
}
