/// The terminal line editor as a pure state machine: input bytes in, screen bytes and completed lines out.
///
/// It knows nothing of descriptors or time, which is what lets every key binding be tested byte for
/// byte; `ConsoleSession` feeds it and writes its output. After each event (a line, Ctrl-C, end of
/// input, an over-long line) it is idle until the owner calls `beginLine()`, because the owner prints
/// the answer first and may change the prompt (consent asks its own question).
///
/// Keys: printable text inserts at the cursor; Backspace, Delete, Ctrl-D (deletes forward, or ends input
/// on an empty line); Left/Right, Ctrl-B/Ctrl-F; Home/End, Ctrl-A/Ctrl-E; Alt-B/Alt-F and Ctrl-Left/Right
/// by word; Ctrl-U deletes to the start, Ctrl-K to the end, Ctrl-W the word before the cursor;
/// Up/Down and Ctrl-P/Ctrl-N walk the history; Tab completes; Ctrl-L redraws; Ctrl-C cancels the line.
struct LineEditor {
    package struct Settings: Hashable, Sendable {
        /// The longest line accepted, in UTF-8 bytes. A longer one is refused and discarded up to its
        /// end, so no input can make the editor hold more than this.
        var maxLineBytes = 4096
        var historyLimit = 200
        /// The longest escape sequence decoded; longer ones are skipped.
        var escapeSequenceLimit = 32

        package init() {}
    }

    package enum Event: Hashable, Sendable {
        /// Enter: the line as typed (already recorded in the history when `recordsHistory`).
        case line(String)
        /// Ctrl-C: the line was dropped and `^C` printed.
        case cancelled
        /// Ctrl-D on an empty line.
        case endOfInput
        /// The end of a line that was refused for its length (the error was printed when it overflowed).
        case lineTooLong
    }

    private enum Mode: Hashable {
        /// No prompt shown; only Ctrl-C means anything.
        case idle
        case editing
        /// After an overflow: everything up to the end of the line is thrown away.
        case discarding
    }

    package let settings: Settings
    /// Shown before the line; takes effect at the next redraw.
    var prompt: String { didSet { dirty = true } }
    /// Terminal columns; the line scrolls sideways within them.
    var width = 80 { didSet { dirty = true } }
    /// Whether entered lines go into the history (not while answering a consent question).
    var recordsHistory = true
    package private(set) var history: ConsoleHistory

    private let complete: (String) -> CompletionCandidates
    private var decoder: TerminalKeyDecoder
    private var buffer = LineBuffer()
    private var view = LineView()
    private var mode = Mode.idle
    private var dirty = false
    private var output: [UInt8] = []
    /// The history entry shown, while walking the history; the line being typed is kept in `draft`.
    private var historyIndex: Int?
    private var draft = ""

    /// - Parameter complete: candidates for the word before the cursor, given the line up to the cursor.
    init(prompt: String, settings: Settings = Settings(), history: [String] = [],
                complete: @escaping (String) -> CompletionCandidates = { _ in .none }) {
        self.prompt = prompt
        self.settings = settings
        self.history = ConsoleHistory(history, limit: settings.historyLimit)
        self.complete = complete
        decoder = TerminalKeyDecoder(sequenceLimit: settings.escapeSequenceLimit)
    }

    /// The line being edited.
    package var text: String { buffer.text }
    /// The cursor, in characters from the start of the line.
    var cursorOffset: Int { buffer.cursor }
    var isEditing: Bool { mode == .editing }
    /// An escape sequence or character is half-received: call `escapeTimedOut()` if nothing follows soon.
    var hasPendingEscape: Bool { decoder.hasPendingInput }

    /// Shows the prompt and an empty line, ready for keys.
    mutating func beginLine() {
        buffer = LineBuffer()
        historyIndex = nil
        draft = ""
        mode = .editing
        view.invalidate()
        dirty = true
    }

    /// Takes one input byte; returns an event when it completes one.
    mutating func feed(_ byte: UInt8) -> Event? {
        guard let key = decoder.decode(byte) else { return nil }
        return handle(key)
    }

    /// Takes several bytes; for tests and for owners that do not change anything between events.
    mutating func feed(_ bytes: some Sequence<UInt8>) -> [Event] {
        var events: [Event] = []
        for byte in bytes {
            if let event = feed(byte) { events.append(event) }
        }
        return events
    }

    /// Abandons a half-received escape sequence (a lone ESC press, or noise).
    mutating func escapeTimedOut() {
        decoder.timeout()
    }

    /// Prints `text` (lines, without a final newline) above the line being edited, then redraws it:
    /// for `live` output and notices arriving while someone types.
    mutating func printAbove(_ text: String) {
        if mode == .editing {
            output += Array("\r\u{1B}[K".utf8)
            dirty = true
        }
        output += TerminalText.bytes(text + "\n")
        view.invalidate()
    }

    /// Everything to write to the terminal since the last call, the line redrawn if it changed.
    mutating func takeOutput() -> [UInt8] {
        renderIfNeeded()
        let bytes = output
        output = []
        return bytes
    }

    // MARK: Keys

    private mutating func handle(_ key: TerminalKey) -> Event? {
        switch mode {
        case .idle:
            guard key == .control(0x03) else { return nil }
            output += Array("^C\r\n".utf8)
            return .cancelled
        case .discarding:
            switch key {
            case .enter:
                mode = .idle
                return .lineTooLong
            case .control(0x03):
                output += Array("^C\r\n".utf8)
                mode = .idle
                return .cancelled
            default:
                return nil
            }
        case .editing:
            break
        }
        switch key {
        case .text(let scalar):
            guard buffer.utf8Count + UTF8.width(scalar) <= settings.maxLineBytes else {
                overflow()
                return nil
            }
            buffer.insert(scalar)
        case .enter:
            return finishLine(.line(buffer.text))
        case .control(let code):
            return control(code)
        case .up: historyUp()
        case .down: historyDown()
        case .left: buffer.moveLeft()
        case .right: buffer.moveRight()
        case .home: buffer.moveHome()
        case .end: buffer.moveEnd()
        case .delete: buffer.deleteForward()
        case .wordLeft: buffer.moveWordLeft()
        case .wordRight: buffer.moveWordRight()
        case .deleteWordBackward: buffer.deleteWordBackward()
        }
        dirty = true
        return nil
    }

    private mutating func control(_ code: UInt8) -> Event? {
        switch code {
        case 0x01: buffer.moveHome()                      // Ctrl-A
        case 0x02: buffer.moveLeft()                      // Ctrl-B
        case 0x03:                                        // Ctrl-C
            renderIfNeeded()
            output += Array("^C".utf8)
            return finishLine(.cancelled)
        case 0x04:                                        // Ctrl-D
            guard buffer.isEmpty else {
                buffer.deleteForward()
                break
            }
            return finishLine(.endOfInput)
        case 0x05: buffer.moveEnd()                       // Ctrl-E
        case 0x06: buffer.moveRight()                     // Ctrl-F
        case 0x08, 0x7F: buffer.backspace()               // Ctrl-H, DEL
        case 0x09: completeAtCursor()                     // Tab
        case 0x0B: buffer.deleteToEnd()                   // Ctrl-K
        case 0x0C:                                        // Ctrl-L
            output += Array("\u{1B}[H\u{1B}[2J".utf8)
            view.invalidate()
        case 0x0E: historyDown()                          // Ctrl-N
        case 0x10: historyUp()                            // Ctrl-P
        case 0x15: buffer.deleteToStart()                 // Ctrl-U
        case 0x17: buffer.deleteWordBackward()            // Ctrl-W
        default: return nil
        }
        dirty = true
        return nil
    }

    /// Ends the row, records a completed line, and goes idle until `beginLine()`.
    private mutating func finishLine(_ event: Event) -> Event {
        renderIfNeeded()
        output += Array("\r\n".utf8)
        if case .line(let line) = event, recordsHistory { history.record(line) }
        buffer = LineBuffer()
        view.invalidate()
        mode = .idle
        return event
    }

    private mutating func overflow() {
        renderIfNeeded()
        output += TerminalText.bytes("\nerror: line too long (more than \(settings.maxLineBytes) bytes), discarded\n")
        buffer = LineBuffer()
        view.invalidate()
        mode = .discarding
    }

    private mutating func renderIfNeeded() {
        guard dirty else { return }
        dirty = false
        guard mode == .editing else { return }
        output += view.render(prompt: prompt, line: buffer, width: width)
    }

    private mutating func bell() {
        output.append(0x07)
    }

    // MARK: History

    private mutating func historyUp() {
        let entries = history.entries
        let index: Int
        if let current = historyIndex {
            guard current > 0 else { return bell() }
            index = current - 1
        } else {
            guard !entries.isEmpty else { return bell() }
            draft = buffer.text
            index = entries.count - 1
        }
        historyIndex = index
        buffer = LineBuffer(entries[index])
    }

    private mutating func historyDown() {
        guard let current = historyIndex else { return bell() }
        if current + 1 < history.entries.count {
            historyIndex = current + 1
            buffer = LineBuffer(history.entries[current + 1])
        } else {
            historyIndex = nil
            buffer = LineBuffer(draft)
        }
    }

    // MARK: Completion

    private mutating func completeAtCursor() {
        let before = String(buffer.characters[..<buffer.cursor])
        let result = complete(before)
        guard !result.candidates.isEmpty, before.hasSuffix(result.partial) else { return bell() }
        if result.candidates.count == 1 {
            return replacePartial(result.partial, with: CommandLineWords.quote(result.candidates[0]) + " ")
        }
        let common = result.commonPrefix
        if common.count > result.partial.count, CommandLineWords.quote(common) == common {
            return replacePartial(result.partial, with: common)
        }
        renderIfNeeded()
        output += TerminalText.bytes("\n" + Self.columns(result.candidates, width: width) + "\n")
        view.invalidate()
    }

    private mutating func replacePartial(_ partial: String, with text: String) {
        guard buffer.utf8Count - partial.utf8.count + text.utf8.count <= settings.maxLineBytes else { return bell() }
        buffer.replaceBeforeCursor(count: partial.count, with: text)
    }

    /// Candidates in columns that fit `width`, at most 100 of them.
    static func columns(_ candidates: [String], width: Int) -> String {
        let shown = candidates.prefix(100)
        let columnWidth = (shown.map { DisplayWidth.of($0) }.max() ?? 0) + 2
        let perRow = max(1, (width - 1) / columnWidth)
        var rows: [String] = []
        var row = ""
        for (index, candidate) in shown.enumerated() {
            let last = index % perRow == perRow - 1 || index == shown.count - 1
            row += last ? candidate : candidate + String(repeating: " ", count: columnWidth - DisplayWidth.of(candidate))
            if last {
                rows.append(row)
                row = ""
            }
        }
        if candidates.count > shown.count { rows.append("… and \(candidates.count - shown.count) more") }
        return rows.joined(separator: "\n")
    }
}
