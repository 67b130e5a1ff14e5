import EventLoop
import SystemIO

/// The console on a terminal or a serial line: raw input and a `LineEditor` (prompt, echo, editing,
/// history, completion), consent questions, and lines printed above the one being typed.
///
/// The core's hooks and the loop's timers hold the terminal console strongly (the board build has no weak
/// references): the core lets go of its hooks once the session has ended, and `ending` cancels the timers.
final class TerminalConsole {
    private let core: ConsoleSessionCore
    private let settings: ConsoleSession.Settings
    private let log: Logger
    private let historyFile: ConsoleHistoryFile?

    /// The terminal settings to put back; set once raw mode is on (a serial line arrives with it set).
    private var terminalMode: TerminalMode?
    /// A serial line arrives configured raw by `ConsoleSession.open`.
    private let needsRawMode: Bool
    private var editor: LineEditor
    private var escapeTimer: TimerHandle?
    private var historyTimer: TimerHandle?
    private var savedHistoryRevision = 0
    /// A consent question waiting for its answer.
    private var consent: ConsentQuestion?

    /// - Parameter serialLine: the settings of a serial line `open` has already made raw, to put back.
    init(core: ConsoleSessionCore, settings: ConsoleSession.Settings, history: ConsoleHistoryFile?,
         serialLine: TerminalMode?, log: Logger) {
        self.core = core
        self.settings = settings
        self.log = log
        historyFile = history
        terminalMode = serialLine
        needsRawMode = serialLine == nil
        let savedHistory = history?.load(limit: settings.editor.historyLimit, maxLineBytes: settings.editor.maxLineBytes) ?? []
        editor = LineEditor(prompt: settings.prompt, settings: settings.editor, history: savedHistory) { [table = core.table] prefix in
            table.completions(forLinePrefix: prefix)
        }
        core.received = { bytes in self.received(bytes) }
        // A hung-up terminal has nobody left to answer.
        core.inputEnded = { core.beginEnding(.endOfInput) }
        core.answered = { self.readyForNextLine() }
        core.asks = { question in self.ask(question) }
        core.streamLine = { line in
            self.flushEditor()
            self.editor.printAbove(line)
            core.enqueue(self.editor.takeOutput(), droppable: true)
        }
        core.drained = { self.noteDroppedOutput() }
        core.ends = { self.ending() }
    }

    /// Starts reading, switches the terminal to raw mode and shows the prompt.
    func start() {
        core.start()
        if needsRawMode, let mode = TerminalMode(saving: core.input) {
            do {
                try mode.makeRawInput()
                terminalMode = mode
            } catch {
                log.warn("console: cannot switch the terminal to raw mode (\(error)); editing keys will not work")
            }
        }
        readyForNextLine()
    }

    /// A line above the one being edited.
    func show(_ text: String) {
        flushEditor()
        editor.printAbove(text)
        flushEditor()
    }

    // MARK: Input

    private func received(_ bytes: [UInt8]) {
        if let escapeTimer { core.loop.cancel(escapeTimer) }
        escapeTimer = nil
        for byte in bytes {
            guard core.ending == nil else { return }
            if let event = editor.feed(byte) {
                flushEditor()
                handle(event)
            }
        }
        flushEditor()
        // A line that ended the session (`quit`) has had `ending` cancel the timers: none may start after it.
        if core.ending == nil, editor.hasPendingEscape {
            escapeTimer = core.loop.schedule(after: settings.escapeTimeout) {
                self.escapeTimer = nil
                self.editor.escapeTimedOut()
            }
        }
        scheduleHistorySave()
    }

    private func handle(_ event: LineEditor.Event) {
        switch event {
        case .line(let line):
            if let question = consent {
                endConsentQuestion()
                core.deliver(question.answer(line))
            } else {
                core.execute(line)
            }
        case .cancelled:
            if consent != nil { endConsentQuestion() }
            core.cancelAnswer()
            readyForNextLine()
        case .endOfInput:
            core.beginEnding(.endOfInput)
        case .lineTooLong:
            readyForNextLine()
        }
    }

    private func ask(_ question: ConsentQuestion) {
        consent = question
        editor.prompt = question.prompt
        editor.recordsHistory = false
        readyForNextLine()
    }

    private func endConsentQuestion() {
        consent = nil
        editor.prompt = settings.prompt
        editor.recordsHistory = true
    }

    /// After an answer: a fresh prompt, as wide as the terminal is now.
    private func readyForNextLine() {
        guard core.ending == nil, !core.isWaiting else { return }
        editor.width = TerminalMode.columns(of: core.output) ?? TerminalMode.columns(of: core.input) ?? 80
        editor.beginLine()
        flushEditor()
    }

    // MARK: Output

    private func flushEditor() {
        core.enqueue(editor.takeOutput())
    }

    /// Once a slow line has caught up, says what it missed.
    private func noteDroppedOutput() {
        let dropped = core.takeDropCounts()
        guard dropped.lines > 0 || dropped.bytes > 0 else { return }
        editor.printAbove("(console too slow: \(dropped.lines) live lines and \(dropped.bytes) bytes of output dropped)")
        core.enqueue(editor.takeOutput())
    }

    // MARK: Ending and history

    private func ending() {
        if let escapeTimer { core.loop.cancel(escapeTimer) }
        escapeTimer = nil
        saveHistory()
        terminalMode?.restore()
        terminalMode = nil
    }

    private func scheduleHistorySave() {
        // Not once ending: `ending` has saved the history and cancelled the timers that hold this console.
        guard core.ending == nil, historyFile != nil, historyTimer == nil,
              editor.history.revision != savedHistoryRevision else { return }
        historyTimer = core.loop.schedule(after: settings.historySaveDelay) {
            self.historyTimer = nil
            self.saveHistory()
        }
    }

    private func saveHistory() {
        if let historyTimer { core.loop.cancel(historyTimer) }
        historyTimer = nil
        guard let historyFile, editor.history.revision != savedHistoryRevision else { return }
        savedHistoryRevision = editor.history.revision
        do {
            try historyFile.save(editor.history.entries)
        } catch {
            log.warn("console history not saved: \(error)")
        }
    }
}
