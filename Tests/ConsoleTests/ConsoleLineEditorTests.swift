@testable import Console
import ENCore
import Testing
@testable import Agent

/// The line editor byte for byte: every binding, history, completion, UTF-8, noise and the line limit.
@Suite struct ConsoleLineEditorTests {
    /// An editor with its prompt already shown and taken, so each test sees only what its keys produce.
    static func editor(history: [String] = [], maxLineBytes: Int = 4096, width: Int = 80,
                       complete: @escaping (String) -> CompletionCandidates = { _ in .none }) -> LineEditor {
        var settings = LineEditor.Settings()
        settings.maxLineBytes = maxLineBytes
        var editor = LineEditor(prompt: "> ", settings: settings, history: history, complete: complete)
        editor.width = width
        editor.beginLine()
        _ = editor.takeOutput()
        return editor
    }

    static func table() -> CommandTable {
        let table = CommandTable()
        for name in ["status", "sightings", "sync", "sync now", "config list", "config set"] {
            table.register(ConsoleCommand(name, summary: name) { _ in .text(name) })
        }
        table.register(ConsoleCommand("config get", summary: "one value", arguments: 1...1,
                                      completion: .firstArgument { ["scan_interval", "server_url", "name"] }) { _ in .text("") })
        return table
    }

    static func tableEditor() -> LineEditor {
        let table = table()
        return editor { table.completions(forLinePrefix: $0) }
    }

    static func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    // MARK: Typing and rendering

    @Test func beginLineDrawsThePromptAndTypingAtTheEndEchoesOnlyTheNewCharacters() {
        var editor = LineEditor(prompt: "> ")
        editor.beginLine()
        #expect(Self.text(editor.takeOutput()) == "\r> \u{1B}[K")
        #expect(editor.feed(Array("abc".utf8)).isEmpty)
        #expect(Self.text(editor.takeOutput()) == "abc")
        #expect(editor.text == "abc")
        #expect(editor.cursorOffset == 3)
    }

    @Test func enterEndsTheLineOnCRLFOrCRLFCountedOnce() {
        var editor = Self.editor()
        #expect(editor.feed(Array("one\r".utf8)) == [.line("one")])
        #expect(Self.text(editor.takeOutput()).hasSuffix("\r\n"))
        #expect(!editor.isEditing)
        editor.beginLine()
        #expect(editor.feed(Array("two\r\n".utf8)) == [.line("two")])
        editor.beginLine()
        #expect(editor.feed(Array("three\n".utf8)) == [.line("three")])
        editor.beginLine()
        #expect(editor.feed(Array("four\r".utf8)) == [.line("four")])
        editor.beginLine()
        // A LF after CR is part of the same Enter, even when it arrives in the next read.
        #expect(editor.feed(Array("\n".utf8)) == [])
    }

    @Test func keysAfterALineAreIgnoredUntilTheNextBeginLine() {
        var editor = Self.editor()
        #expect(editor.feed(Array("a\rbc\r".utf8)) == [.line("a")])
        editor.beginLine()
        #expect(editor.text == "")
    }

    @Test func backspaceAndCtrlHDeleteBeforeTheCursor() {
        var editor = Self.editor()
        _ = editor.feed(Array("abcd".utf8) + [0x7F, 0x08])
        #expect(editor.text == "ab")
        _ = editor.feed([0x01, 0x7F])  // at the start: nothing to delete
        #expect(editor.text == "ab")
    }

    @Test func ctrlAAndCtrlEMoveToTheEnds() {
        var editor = Self.editor()
        _ = editor.feed(Array("ab".utf8) + [0x01] + Array("X".utf8) + [0x05] + Array("Y".utf8))
        #expect(editor.text == "XabY")
        #expect(editor.cursorOffset == 4)
    }

    @Test func ctrlBAndCtrlFAndTheArrowKeysMoveByOneCharacter() {
        var editor = Self.editor()
        _ = editor.feed(Array("ac".utf8) + [0x02] + Array("b".utf8))
        #expect(editor.text == "abc")
        _ = editor.feed(Array("\u{1B}[D\u{1B}[D\u{1B}OD".utf8))  // left, left, and the SS3 form of left
        #expect(editor.cursorOffset == 0)
        _ = editor.feed(Array("\u{1B}[C".utf8) + [0x06])
        #expect(editor.cursorOffset == 2)
        _ = editor.feed(Array("\u{1B}[C\u{1B}[C\u{1B}[C".utf8))  // never past the end
        #expect(editor.cursorOffset == 3)
    }

    @Test func homeEndAndDeleteInTheirVariousEncodings() {
        var editor = Self.editor()
        _ = editor.feed(Array("abc".utf8))
        for (sequence, offset) in [("\u{1B}[H", 0), ("\u{1B}[F", 3), ("\u{1B}[1~", 0), ("\u{1B}[4~", 3),
                                   ("\u{1B}[7~", 0), ("\u{1B}[8~", 3), ("\u{1B}OH", 0), ("\u{1B}OF", 3)] {
            _ = editor.feed(Array(sequence.utf8))
            #expect(editor.cursorOffset == offset, "\(sequence.debugDescription)")
        }
        _ = editor.feed(Array("\u{1B}[H\u{1B}[3~".utf8))
        #expect(editor.text == "bc")
    }

    @Test func ctrlUDeletesToTheStartAndCtrlKToTheEnd() {
        var editor = Self.editor()
        _ = editor.feed(Array("hello world".utf8) + [0x01] + Array(repeating: 0x06, count: 5) + [0x15])
        #expect(editor.text == " world")
        #expect(editor.cursorOffset == 0)
        _ = editor.feed([0x06, 0x06, 0x0B])
        #expect(editor.text == " w")
    }

    @Test func ctrlWDeletesTheWordBeforeTheCursor() {
        var editor = Self.editor()
        _ = editor.feed(Array("config set  name".utf8) + [0x17])
        #expect(editor.text == "config set  ")
        _ = editor.feed([0x17])
        #expect(editor.text == "config ")
        _ = editor.feed([0x17, 0x17])
        #expect(editor.text == "")
    }

    @Test func wordMovesWithAltAndCtrlArrows() {
        var editor = Self.editor()
        _ = editor.feed(Array("one two three".utf8))
        _ = editor.feed(Array("\u{1B}b".utf8))
        #expect(editor.cursorOffset == 8)
        _ = editor.feed(Array("\u{1B}[1;5D".utf8))
        #expect(editor.cursorOffset == 4)
        _ = editor.feed(Array("\u{1B}f".utf8))
        #expect(editor.cursorOffset == 7)
        _ = editor.feed(Array("\u{1B}[1;5C".utf8))
        #expect(editor.cursorOffset == 13)
        _ = editor.feed([0x1B, 0x7F])  // Alt-Backspace
        #expect(editor.text == "one two ")
    }

    @Test func editingInTheMiddleRedrawsTheRowWithTheCursorPutBack() {
        var editor = Self.editor()
        _ = editor.feed(Array("ab".utf8))
        _ = editor.takeOutput()
        _ = editor.feed([0x01])
        #expect(Self.text(editor.takeOutput()) == "\r> ab\u{1B}[K\u{1B}[2D")
        _ = editor.feed(Array("X".utf8))
        #expect(Self.text(editor.takeOutput()) == "\r> Xab\u{1B}[K\u{1B}[2D")
    }

    @Test func ctrlLClearsTheScreenAndRedraws() {
        var editor = Self.editor()
        _ = editor.feed(Array("ab".utf8))
        _ = editor.takeOutput()
        _ = editor.feed([0x0C])
        #expect(Self.text(editor.takeOutput()) == "\u{1B}[H\u{1B}[2J\r> ab\u{1B}[K")
    }

    @Test func aLineWiderThanTheTerminalScrollsSidewaysAndKeepsTheCursorVisible() {
        var editor = Self.editor(width: 20)
        _ = editor.feed(Array(String(repeating: "0123456789", count: 5).utf8))
        let output = Self.text(editor.takeOutput())
        let lastRow = String(output.split(separator: "\r").last ?? "")
        // "> " plus at most 17 characters: never the last column, never a wrap.
        #expect(lastRow.hasPrefix("> "))
        #expect(lastRow.replacingEscapes.count <= 19)
        #expect(lastRow.replacingEscapes.hasSuffix("789"))
        _ = editor.feed([0x01])
        let home = Self.text(editor.takeOutput())
        #expect(home.hasPrefix("\r> 0123456789"))
        #expect(editor.text.count == 50)
    }

    // MARK: Ctrl-C, Ctrl-D

    @Test func ctrlCCancelsTheLineAndPrintsCaret() {
        var editor = Self.editor()
        #expect(editor.feed(Array("half typed".utf8) + [0x03]) == [.cancelled])
        #expect(Self.text(editor.takeOutput()).hasSuffix("^C\r\n"))
        #expect(editor.text == "")
        editor.beginLine()
        #expect(Self.text(editor.takeOutput()) == "\r> \u{1B}[K")
        #expect(editor.feed(Array("next\r".utf8)) == [.line("next")])
        #expect(!editor.history.entries.contains("half typed"))
    }

    @Test func ctrlCWhileIdleIsStillReported() {
        var editor = Self.editor()
        _ = editor.feed(Array("x\r".utf8))
        _ = editor.takeOutput()
        #expect(editor.feed([0x03]) == [.cancelled])
        #expect(Self.text(editor.takeOutput()) == "^C\r\n")
    }

    @Test func ctrlDEndsInputOnlyOnAnEmptyLine() {
        var editor = Self.editor()
        _ = editor.feed(Array("ab".utf8) + [0x01])
        #expect(editor.feed([0x04]) == [])
        #expect(editor.text == "b")
        _ = editor.feed([0x04])
        #expect(editor.feed([0x04]) == [.endOfInput])
    }

    // MARK: History

    @Test func upAndDownWalkTheHistoryAndComeBackToTheDraft() {
        var editor = Self.editor(history: ["status", "help"])
        _ = editor.feed(Array("dra".utf8))
        _ = editor.feed(Array("\u{1B}[A".utf8))
        #expect(editor.text == "help")
        _ = editor.feed(Array("\u{1B}[A".utf8))
        #expect(editor.text == "status")
        _ = editor.takeOutput()
        _ = editor.feed(Array("\u{1B}[A".utf8))  // the oldest: a bell, nothing else
        #expect(editor.text == "status")
        #expect(editor.takeOutput() == [0x07])
        _ = editor.feed(Array("\u{1B}[B".utf8))
        #expect(editor.text == "help")
        _ = editor.feed([0x0E])  // Ctrl-N
        #expect(editor.text == "dra")
        _ = editor.feed([0x10])  // Ctrl-P
        #expect(editor.text == "help")
        #expect(editor.cursorOffset == 4)
    }

    @Test func enteredLinesAreRecordedWithoutBlanksOrRepeats() {
        var editor = Self.editor()
        for line in ["status", "status", "   ", "help", ""] {
            _ = editor.feed(Array((line + "\r").utf8))
            editor.beginLine()
        }
        #expect(editor.history.entries == ["status", "help"])
        _ = editor.feed(Array("\u{1B}[A\r".utf8))
        #expect(editor.history.entries == ["status", "help"])
    }

    @Test func historyIsBoundedAndNotRecordedWhileDisabled() {
        var history = ConsoleHistory(limit: 3)
        for n in 1...5 { history.record("c\(n)") }
        #expect(history.entries == ["c3", "c4", "c5"])

        var editor = Self.editor()
        editor.recordsHistory = false
        _ = editor.feed(Array("yes\r".utf8))
        #expect(editor.history.entries.isEmpty)
    }

    // MARK: Completion

    @Test func tabCompletesAUniqueCommandWithASpace() {
        var editor = Self.tableEditor()
        _ = editor.feed(Array("sta\t".utf8))
        #expect(editor.text == "status ")
    }

    @Test func tabListsAmbiguousCandidatesAndRedrawsTheLine() {
        var editor = Self.tableEditor()
        _ = editor.feed(Array("s".utf8))
        _ = editor.takeOutput()
        _ = editor.feed([0x09])
        let output = Self.text(editor.takeOutput())
        #expect(output.contains("sightings  status     sync"))
        #expect(output.hasSuffix("\r> s\u{1B}[K"))
        #expect(editor.text == "s")
    }

    @Test func tabExtendsToTheCommonPrefixFirst() {
        var editor = Self.tableEditor()
        _ = editor.feed(Array("si".utf8) + [0x09])
        #expect(editor.text == "sightings ")
        var other = Self.tableEditor()
        _ = other.feed(Array("config get s".utf8) + [0x09])
        #expect(other.text == "config get s")  // scan_interval and server_url share only "s": listed
        _ = other.feed(Array("e".utf8) + [0x09])
        #expect(other.text == "config get server_url ")
    }

    @Test func tabCompletesSubcommandsAndArguments() {
        var editor = Self.tableEditor()
        _ = editor.feed(Array("config g\t".utf8))
        #expect(editor.text == "config get ")
        _ = editor.feed(Array("na\t".utf8))
        #expect(editor.text == "config get name ")
        var sync = Self.tableEditor()
        _ = sync.feed(Array("sync \t".utf8))
        #expect(sync.text == "sync now ")
    }

    @Test func tabWithNothingToOfferRingsTheBell() {
        var editor = Self.tableEditor()
        _ = editor.feed(Array("zz".utf8))
        _ = editor.takeOutput()
        _ = editor.feed([0x09])
        #expect(editor.takeOutput() == [0x07])
        #expect(editor.text == "zz")
    }

    @Test func tabCompletesAtTheCursorNotAtTheEnd() {
        var editor = Self.tableEditor()
        _ = editor.feed(Array("sta --json".utf8) + Array(repeating: 0x02, count: 7) + [0x09])
        #expect(editor.text == "status  --json")
    }

    // MARK: UTF-8

    @Test func multiByteCharactersAreInsertedDeletedAndSteppedOverWhole() {
        var editor = Self.editor()
        _ = editor.feed(Array("é日本👍".utf8))
        #expect(editor.text == "é日本👍")
        #expect(editor.cursorOffset == 4)
        _ = editor.feed([0x7F])
        #expect(editor.text == "é日本")
        _ = editor.feed(Array("\u{1B}[D".utf8) + [0x7F])
        #expect(editor.text == "é本")
    }

    @Test func aCharacterSplitAcrossReadsIsAssembled() {
        var editor = Self.editor()
        let bytes = Array("日".utf8)
        #expect(editor.feed(bytes[0..<1]).isEmpty)
        #expect(editor.hasPendingEscape)
        _ = editor.feed(bytes[1...])
        #expect(editor.text == "日")
        #expect(!editor.hasPendingEscape)
    }

    @Test func aCombiningMarkJoinsThePreviousCharacter() {
        var editor = Self.editor()
        _ = editor.feed(Array("e\u{301}x".utf8))
        #expect(editor.text == "e\u{301}x")
        #expect(editor.cursorOffset == 2)
        _ = editor.feed([0x7F, 0x7F])
        #expect(editor.text == "")
    }

    @Test func invalidUTF8AndC1ControlsAreDropped() {
        var editor = Self.editor()
        _ = editor.feed([0xFF, 0xC3, 0x28, 0x80, 0xE0, 0x80, 0x80, 0xED, 0xA0, 0x80, 0xC2, 0x85] + Array("ok".utf8))
        #expect(editor.text == "(ok")
    }

    @Test func wideCharactersTakeTwoColumns() {
        #expect(DisplayWidth.of("日本語") == 6)
        #expect(DisplayWidth.of("abc") == 3)
        #expect(DisplayWidth.of(Character("e\u{301}")) == 1)
    }

    // MARK: Noise and escapes

    @Test func aHalfWrittenEscapeSequenceIsAbandonedOnTimeout() {
        var editor = Self.editor()
        _ = editor.feed(Array("\u{1B}[".utf8))
        #expect(editor.hasPendingEscape)
        editor.escapeTimedOut()
        #expect(!editor.hasPendingEscape)
        _ = editor.feed(Array("x".utf8))
        #expect(editor.text == "x")
    }

    @Test func anEscapeBeforeAnOrdinaryKeyKeepsTheKey() {
        var editor = Self.editor()
        _ = editor.feed(Array("\u{1B}x\u{1B}\u{1B}[Dy".utf8))
        #expect(editor.text == "yx")
    }

    @Test func anOverLongOrUnknownSequenceIsSkippedWithoutSwallowingWhatFollows() {
        var editor = Self.editor()
        let long = "\u{1B}[" + String(repeating: "1;", count: 200) + "A"
        _ = editor.feed(Array((long + "ok" + "\u{1B}[99z" + "!" + "\u{1B}[200~pasted\u{1B}[201~").utf8))
        #expect(editor.text == "ok!pasted")
        // A sequence broken by a control byte ends there, and the byte counts.
        var other = Self.editor()
        #expect(other.feed(Array("\u{1B}[12\rnext".utf8)) == [.line("")])
    }

    @Test func randomNoiseNeverWedgesTheEditorOrGrowsItPastTheLimit() {
        var generator = SplitMix64(seed: 7)
        var editor = Self.editor(maxLineBytes: 512)
        var events = 0
        var longest = 0
        for index in 0..<200_000 {
            if editor.feed(UInt8.random(in: 0...255, using: &generator)) != nil {
                events += 1
                editor.beginLine()
            }
            if index % 97 == 0 { longest = max(longest, editor.text.utf8.count) }
            if editor.hasPendingEscape && UInt8.random(in: 0...255, using: &generator) < 8 { editor.escapeTimedOut() }
            if index % 37 == 0 { _ = editor.takeOutput() }
        }
        #expect(events > 0)
        #expect(longest <= 512)
        editor.escapeTimedOut()
        _ = editor.feed([0x03])
        editor.beginLine()
        #expect(editor.feed(Array("help\r".utf8)) == [.line("help")])
    }

    // MARK: The line limit

    @Test func aTenMegabyteLineIsRefusedOnceAndDiscardedUpToItsEnd() {
        var editor = Self.editor()
        let chunk = [UInt8](repeating: UInt8(ascii: "a"), count: 64 * 1024)
        var output: [UInt8] = []
        for _ in 0..<160 {  // 10 MiB
            #expect(editor.feed(chunk).isEmpty)
            #expect(editor.text.utf8.count <= 4096)
            output += editor.takeOutput()
        }
        let text = Self.text(output)
        #expect(text.occurrences(of: "line too long") == 1)
        #expect(output.count < 4096 + 200, "the discarded part is not echoed")
        #expect(editor.feed(Array("\r".utf8)) == [.lineTooLong])
        editor.beginLine()
        #expect(editor.feed(Array("status\r".utf8)) == [.line("status")])
        #expect(editor.history.entries == ["status"])
    }

    @Test func aLineOfExactlyTheLimitIsAccepted() {
        var editor = Self.editor(maxLineBytes: 8)
        #expect(editor.feed(Array("12345678\r".utf8)) == [.line("12345678")])
        editor.beginLine()
        // A multi-byte character that would cross the limit overflows instead of being cut.
        _ = editor.feed(Array("1234567".utf8))
        _ = editor.feed(Array("é".utf8))
        #expect(Self.text(editor.takeOutput()).contains("line too long"))
        #expect(editor.feed(Array("x\r".utf8)) == [.lineTooLong])
    }

    @Test func ctrlCEndsTheDiscardingOfAnOverLongLine() {
        var editor = Self.editor(maxLineBytes: 4)
        _ = editor.feed(Array("12345678".utf8))
        #expect(editor.feed([0x03]) == [.cancelled])
    }

    @Test func printAboveClearsTheRowPrintsAndRedraws() {
        var editor = Self.editor()
        _ = editor.feed(Array("sta".utf8))
        _ = editor.takeOutput()
        editor.printAbove("tick 1")
        #expect(Self.text(editor.takeOutput()) == "\r\u{1B}[Ktick 1\r\n\r> sta\u{1B}[K")
    }
}

extension String {
    /// How many times `needle` occurs, without overlaps.
    func occurrences(of needle: String) -> Int {
        var count = 0
        var rest = Substring(self)
        while let range = rest.firstRange(of: needle) {
            count += 1
            rest = rest[range.upperBound...]
        }
        return count
    }

    /// Without CSI escape sequences: what a terminal would show as text.
    var replacingEscapes: String {
        var out = ""
        var inEscape = false
        for scalar in unicodeScalars {
            if inEscape {
                if (0x40...0x7E).contains(scalar.value) && scalar != "[" { inEscape = false }
            } else if scalar == "\u{1B}" {
                inEscape = true
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
