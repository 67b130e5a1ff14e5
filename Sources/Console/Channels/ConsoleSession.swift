import ENCore
import EventLoop
import SystemIO
import SystemIO
#if canImport(Glibc)
import Glibc
#endif

/// The REPL on the loop: the agent's stdin and stdout, or a serial line.
///
/// On a terminal (stdin is a tty, or a serial device) it switches input to raw mode and runs a
/// `LineEditor`: prompt, echo, editing, history, completion, and consent questions. On a pipe or a file
/// it is a plain line reader for scripts: no prompt, no echo, one answer per line, in order. End of
/// input (EOF on a pipe, Ctrl-D on a terminal) ends the session, not the agent: `onEnd` tells the owner.
///
/// Nothing here blocks the loop: input is read only when ready, output goes through a bounded queue
/// written as the descriptor accepts it (a 115200-baud line or a stopped terminal cannot stall the
/// badge), and `live` lines are dropped before anything else when the queue fills.
public final class ConsoleSession {
    public struct Settings {
        public var prompt = "enbeacon> "
        public var editor = LineEditor.Settings()
        /// Output waiting for a slow line beyond this is dropped (and a note printed once it drains).
        public var outputLimit = 256 * 1024
        /// `live` lines are dropped once this much output is waiting.
        public var liveOutputLimit = 16 * 1024
        /// A half-received escape sequence is abandoned after this long without more input.
        public var escapeTimeout: Duration = .milliseconds(100)
        /// History is written this long after the last new entry (and when the session ends), so a burst
        /// of commands costs one write to the SD card.
        public var historySaveDelay: Duration = .seconds(5)

        public init() {}
    }

    public enum Ending: Hashable, Sendable {
        /// EOF on a pipe, or Ctrl-D on an empty terminal line.
        case endOfInput
        /// Reading or writing failed (a serial adapter unplugged, a terminal hung up).
        case failed(String)
    }

    public let channel: ConsoleChannel
    /// Called once when the session ends by itself (not after `close()`), once its output is written.
    public var onEnd: (Ending) -> Void = { _ in }
    public private(set) var isRunning = false

    private let loop: any EventLoop
    private let table: CommandTable
    private let input: Int32
    private let output: Int32
    private let ownsDescriptors: Bool
    private let settings: Settings
    private let log: Logger
    private let historyFile: ConsoleHistoryFile?

    /// The terminal settings to put back; set for a terminal once raw mode is on.
    private var terminalMode: TerminalMode?
    /// A serial line arrives configured raw by `open`.
    private var needsRawMode: Bool
    private var editor: LineEditor
    private var reader: BoundedLineReader
    private var queue: OutputQueue
    private var readBuffer = [UInt8](repeating: 0, count: 4096)

    private var inputWatch: WatchHandle?
    private var outputWatch: WatchHandle?
    private var escapeTimer: TimerHandle?
    private var historyTimer: TimerHandle?
    private var savedHistoryRevision = 0

    /// A consent question waiting for its answer (terminal only).
    private var consent: ConsentQuestion?
    /// A deferred answer being waited for; lines typed or piped meanwhile wait too.
    private var waiting: ConsoleDeferredReply?
    private var stream: ConsoleStream?
    /// Pipe input that arrived while an answer was being waited for.
    private var queuedInput: [BoundedLineReader.Event] = []
    private var inputEnded = false
    /// True while queued pipe lines are being worked off, so that answering one does not recurse into
    /// the next (a 4 KiB read can hold two thousand lines).
    private var drainingQueuedInput = false
    /// False once `close()` was called: the owner knows, and is not told again.
    private var notifiesEnd = true
    /// Set once the session is ending; it ends when the output queue has drained.
    private var ending: Ending?

    /// A session on descriptors that are already open: a terminal when `input` is a tty, a pipe otherwise.
    ///
    /// - Parameters:
    ///   - ownsDescriptors: close them when the session ends (false for stdin and stdout).
    ///   - history: where a terminal session keeps its history; nil keeps it in memory only.
    public init(loop: any EventLoop, table: CommandTable, input: Int32, output: Int32, ownsDescriptors: Bool = false,
                history: ConsoleHistoryFile? = nil, settings: Settings = Settings(), log: Logger = .silent) {
        self.loop = loop
        self.table = table
        self.input = input
        self.output = output
        self.ownsDescriptors = ownsDescriptors
        self.settings = settings
        self.log = log
        historyFile = history
        channel = isatty(input) == 1 ? .terminal : .pipe
        needsRawMode = channel == .terminal
        reader = BoundedLineReader(maxLineBytes: settings.editor.maxLineBytes)
        queue = OutputQueue(limit: settings.outputLimit, droppableLimit: settings.liveOutputLimit)
        let savedHistory = channel == .terminal
            ? history?.load(limit: settings.editor.historyLimit, maxLineBytes: settings.editor.maxLineBytes) ?? []
            : []
        editor = LineEditor(prompt: settings.prompt, settings: settings.editor, history: savedHistory) { [weak table] prefix in
            table?.completions(forLinePrefix: prefix) ?? .none
        }
    }

    /// The session `spec` asks for, not yet started; nil for `.none`.
    public static func open(_ spec: ConsoleSpec, loop: any EventLoop, table: CommandTable, history: ConsoleHistoryFile? = nil,
                            settings: Settings = Settings(), log: Logger = .silent) throws(ConsoleError) -> ConsoleSession? {
        switch spec {
        case .none:
            return nil
        case .standardInput:
            return ConsoleSession(loop: loop, table: table, input: 0, output: 1, history: history, settings: settings, log: log)
        case .serial(let path, let baud):
            let fd = Glibc.open(path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
            guard fd >= 0 else { throw ConsoleError("--console \(path): \(String(cString: strerror(errno)))") }
            guard let original = TerminalMode(saving: fd) else {
                Glibc.close(fd)
                throw ConsoleError("--console \(path) is not a serial device")
            }
            do {
                try SerialLine.configureRaw(fd: fd, path: path, baud: baud, flowControl: false)
            } catch {
                Glibc.close(fd)
                throw ConsoleError("--console \(error)")
            }
            let session = ConsoleSession(loop: loop, table: table, input: fd, output: fd, ownsDescriptors: true,
                                         history: history, settings: settings, log: log)
            session.terminalMode = original
            session.needsRawMode = false
            return session
        }
    }

    /// Starts reading; on a terminal, switches it to raw mode and shows the prompt.
    public func start() {
        guard !isRunning, ending == nil else { return }
        isRunning = true
        if channel == .terminal {
            if needsRawMode, let mode = TerminalMode(saving: input) {
                do {
                    try mode.makeRawInput()
                    terminalMode = mode
                } catch {
                    log.warn("console: cannot switch the terminal to raw mode (\(error)); editing keys will not work")
                }
            }
            readyForNextLine()
        }
        inputWatch = loop.watch(fd: input, for: .readable) { [weak self] readiness in self?.inputReady(readiness) }
        outputWatch = loop.watch(fd: output, for: []) { [weak self] readiness in self?.outputReady(readiness) }
        flushOutput()
    }

    /// Ends the session now: stops any stream, puts the terminal back, writes the history, and drops
    /// output that could not be written at once. `onEnd` is not called. Call it on every way out of
    /// the agent (including SIGTERM), or the terminal stays raw.
    public func close() {
        guard isRunning else {
            // Opened but never started: a serial line still has to be put back and closed.
            if ending == nil {
                ending = .endOfInput
                terminalMode?.restore()
                terminalMode = nil
                if ownsDescriptors {
                    Glibc.close(input)
                    if output != input { Glibc.close(output) }
                }
            }
            return
        }
        notifiesEnd = false
        if ending == nil { beginEnding(.endOfInput) }
        flushOutput()
        finishEnding()
    }

    /// Whether `show` reaches the person now (the session runs and is not ending).
    public var isShowing: Bool { isRunning && ending == nil }

    /// Prints a line for the person at the console (above the line being edited on a terminal).
    public func show(_ text: String) {
        guard isRunning, ending == nil else { return }
        if channel == .terminal {
            flushEditor()
            editor.printAbove(text)
            flushEditor()
        } else {
            enqueue(Array((text + "\n").utf8))
        }
    }

    // MARK: Input

    private func inputReady(_ readiness: FDReadiness) {
        guard ending == nil else { return }
        let outcome = readBuffer.withUnsafeMutableBytes { DescriptorIO.read(input, into: $0) }
        switch outcome {
        case .transferred(let count):
            received(Array(readBuffer[0..<count]))
        case .wouldBlock:
            return
        case .endOfFile:
            inputHasEnded()
        case .failed(let code):
            beginEnding(.failed("console input: \(String(cString: strerror(code)))"))
        }
    }

    private func received(_ bytes: [UInt8]) {
        if channel == .terminal {
            if let escapeTimer { loop.cancel(escapeTimer) }
            escapeTimer = nil
            for byte in bytes {
                guard ending == nil else { return }
                if let event = editor.feed(byte) {
                    flushEditor()
                    handle(event)
                }
            }
            flushEditor()
            if editor.hasPendingEscape {
                escapeTimer = loop.schedule(after: settings.escapeTimeout) { [weak self] in
                    guard let self else { return }
                    escapeTimer = nil
                    editor.escapeTimedOut()
                }
            }
            scheduleHistorySave()
        } else {
            for event in reader.feed(bytes) { pipeInput(event) }
        }
    }

    private func handle(_ event: LineEditor.Event) {
        switch event {
        case .line(let line):
            execute(line)
        case .cancelled:
            if consent != nil { endConsentQuestion() }
            waiting?.cancel()
            waiting = nil
            stream?.end()
            readyForNextLine()
        case .endOfInput:
            beginEnding(.endOfInput)
        case .lineTooLong:
            readyForNextLine()
        }
    }

    private func pipeInput(_ event: BoundedLineReader.Event) {
        guard waiting == nil, queuedInput.isEmpty else {
            queuedInput.append(event)
            // Nothing more is read until the queue is worked off: the pipe itself holds the rest.
            if let inputWatch { loop.update(inputWatch, interest: []) }
            return
        }
        switch event {
        case .line(let line): execute(line)
        case .tooLong: write(error: "line too long (more than \(reader.maxLineBytes) bytes), discarded", json: false)
        }
    }

    private func inputHasEnded() {
        inputEnded = true
        if let inputWatch { loop.unwatch(inputWatch) }
        inputWatch = nil
        if channel == .pipe, let last = reader.finish() { pipeInput(last) }
        if waiting == nil, queuedInput.isEmpty { beginEnding(.endOfInput) }
    }

    // MARK: Commands

    private func execute(_ line: String) {
        if let question = consent {
            endConsentQuestion()
            deliver(question.answer(line))
        } else {
            deliver(table.execute(line, channel: channel))
        }
    }

    private func deliver(_ outcome: ConsoleOutcome) {
        switch outcome {
        case .nothing:
            readyForNextLine()
        case .confirm(let question):
            consent = question
            editor.prompt = question.prompt
            editor.recordsHistory = false
            readyForNextLine()
        case .reply(let reply, let json):
            deliver(reply, json: json)
        }
    }

    private func deliver(_ reply: ConsoleReply, json: Bool) {
        switch reply {
        case .text(let text), .json(let text):
            write(text)
        case .error(let message):
            write(error: message, json: json)
        case .usage(let detail):
            write(error: "usage: " + (detail ?? "wrong arguments"), json: json)
        case .endStream(let text):
            stream?.end()
            write(text)
        case .stream(let newStream):
            stream?.end()
            stream = newStream
            newStream.attach(sink: { [weak self] line in self?.streamLine(line) },
                             onEnd: { [weak self, weak newStream] in
                                 if let self, stream === newStream { stream = nil }
                             })
        case .deferred(let later):
            waiting = later
            later.attach { [weak self, weak later] reply in
                guard let self, let later, waiting === later else { return }
                waiting = nil
                deliver(reply, json: json)
            }
            return
        }
        readyForNextLine()
    }

    private func endConsentQuestion() {
        consent = nil
        editor.prompt = settings.prompt
        editor.recordsHistory = true
    }

    /// After an answer: a fresh prompt on a terminal; on a pipe, the lines that waited meanwhile.
    private func readyForNextLine() {
        guard ending == nil, waiting == nil else { return }
        if channel == .terminal {
            editor.width = TerminalMode.columns(of: output) ?? TerminalMode.columns(of: input) ?? 80
            editor.beginLine()
            flushEditor()
            return
        }
        guard !drainingQueuedInput else { return }
        drainingQueuedInput = true
        while ending == nil, waiting == nil, !queuedInput.isEmpty {
            let event = queuedInput.removeFirst()
            switch event {
            case .line(let line): execute(line)
            case .tooLong: write(error: "line too long (more than \(reader.maxLineBytes) bytes), discarded", json: false)
            }
        }
        drainingQueuedInput = false
        guard ending == nil, waiting == nil, queuedInput.isEmpty else { return }
        if inputEnded {
            beginEnding(.endOfInput)
        } else if let inputWatch {
            loop.update(inputWatch, interest: .readable)
        }
    }

    // MARK: Output

    private func write(_ text: String) {
        guard !text.isEmpty else { return }
        let line = text.hasSuffix("\n") ? text : text + "\n"
        enqueue(channel == .terminal ? TerminalText.bytes(line) : Array(line.utf8))
    }

    private func write(error message: String, json: Bool) {
        write(json ? JSONText.error(message) : "error: " + message)
    }

    private func streamLine(_ line: String) {
        guard ending == nil else { return }
        if channel == .terminal {
            flushEditor()
            editor.printAbove(line)
            enqueue(editor.takeOutput(), droppable: true)
        } else {
            enqueue(Array((line + "\n").utf8), droppable: true)
        }
    }

    private func flushEditor() {
        enqueue(editor.takeOutput())
    }

    private func enqueue(_ bytes: [UInt8], droppable: Bool = false) {
        guard !bytes.isEmpty else { return }
        queue.append(bytes, droppable: droppable)
        flushOutput()
    }

    private func outputReady(_ readiness: FDReadiness) {
        flushOutput()
    }

    /// Writes what the descriptor takes now; asks the loop for writability only while bytes wait.
    private func flushOutput() {
        guard isRunning else { return }
        var failure: Int32?
        var progressing = true
        while !queue.isEmpty, failure == nil, progressing {
            queue.drain { bytes in
                switch DescriptorIO.write(output, bytes) {
                case .transferred(let count):
                    progressing = count > 0
                    return count
                case .wouldBlock, .endOfFile:
                    progressing = false
                case .failed(let code):
                    failure = code
                }
                return 0
            }
        }
        if let failure {
            queue.removeAll()
            if ending == nil { beginEnding(.failed("console output: \(String(cString: strerror(failure)))")) }
            finishEnding()
            return
        }
        if queue.isEmpty, ending == nil, channel == .terminal {
            let dropped = queue.takeDropCounts()
            if dropped.lines > 0 || dropped.bytes > 0 {
                editor.printAbove("(console too slow: \(dropped.lines) live lines and \(dropped.bytes) bytes of output dropped)")
                queue.append(editor.takeOutput(), droppable: false)
            }
        }
        if let outputWatch { loop.update(outputWatch, interest: queue.isEmpty ? [] : .writable) }
        if queue.isEmpty, ending != nil { finishEnding() }
    }

    // MARK: Ending

    private func beginEnding(_ reason: Ending) {
        guard ending == nil else { return }
        ending = reason
        if let inputWatch { loop.unwatch(inputWatch) }
        inputWatch = nil
        if let escapeTimer { loop.cancel(escapeTimer) }
        escapeTimer = nil
        stream?.end()
        stream = nil
        waiting?.cancel()
        waiting = nil
        saveHistory()
        terminalMode?.restore()
        terminalMode = nil
        if queue.isEmpty { finishEnding() }
    }

    private func finishEnding() {
        guard isRunning, let ending else { return }
        isRunning = false
        if let outputWatch { loop.unwatch(outputWatch) }
        outputWatch = nil
        if ownsDescriptors {
            Glibc.close(input)
            if output != input { Glibc.close(output) }
        }
        if notifiesEnd { onEnd(ending) }
    }

    // MARK: History

    private func scheduleHistorySave() {
        guard historyFile != nil, historyTimer == nil, editor.history.revision != savedHistoryRevision else { return }
        historyTimer = loop.schedule(after: settings.historySaveDelay) { [weak self] in
            guard let self else { return }
            historyTimer = nil
            saveHistory()
        }
    }

    private func saveHistory() {
        if let historyTimer { loop.cancel(historyTimer) }
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
