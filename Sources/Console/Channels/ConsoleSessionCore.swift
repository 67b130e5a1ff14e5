import ENCore
import EventLoop
import SystemIO

/// What the terminal and the pipe console share: the descriptors, reading, the command table, the answer
/// being waited for and the stream being shown, the writer, and how a session ends.
///
/// The mode (`TerminalConsole`, `PipeConsole`) turns input bytes into lines and decides what happens
/// between answers; it hears from here through the hooks below, each called on the loop.
///
/// No weak references (the board build has none): from `start` until the session has ended, the loop's
/// input watch, the writer, a running stream and an awaited answer hold the core, and the hooks hold the
/// mode, which holds the core. Ending (by itself or by `close`) lets go of all of them and sets the hooks
/// to no-ops, so an ended session is held by its owner alone.
final class ConsoleSessionCore {
    let channel: ConsoleChannel
    let table: CommandTable
    let loop: any EventLoop
    let input: Int32
    let output: Int32
    private let ownsDescriptors: Bool

    /// Called once when the session ends by itself (not after `close()`), once its output is written.
    var onEnd: (ConsoleSession.Ending) -> Void = { _ in }
    private(set) var isRunning = false
    /// Set once the session is ending; it ends when the output has drained.
    private(set) var ending: ConsoleSession.Ending?

    // MARK: The mode's hooks

    /// Bytes read from the input.
    var received: ([UInt8]) -> Void = { _ in }
    /// The input reached its end (it is no longer watched).
    var inputEnded: () -> Void = {}
    /// A line has been fully answered (or needed no answer): ready for the next.
    var answered: () -> Void = {}
    /// A command needs consent: ask, and pass the next line to the question.
    var asks: (ConsentQuestion) -> Void = { _ in }
    /// A line of the running stream, to be queued as droppable output.
    var streamLine: (String) -> Void = { _ in }
    /// Everything queued has been written.
    var drained: () -> Void = {}
    /// The session is ending: put the terminal back, save what must be saved.
    var ends: () -> Void = {}

    private let writer: DescriptorWriter
    private var inputWatch: WatchHandle?
    private var readBuffer = [UInt8](repeating: 0, count: 4096)
    /// A deferred answer being waited for; lines typed or piped meanwhile wait too.
    private var waiting: ConsoleDeferredReply?
    private var stream: ConsoleStream?
    /// False once `close()` was called: the owner knows, and is not told again.
    private var notifiesEnd = true

    init(channel: ConsoleChannel, loop: any EventLoop, table: CommandTable, input: Int32, output: Int32,
         ownsDescriptors: Bool, settings: ConsoleSession.Settings) {
        self.channel = channel
        self.loop = loop
        self.table = table
        self.input = input
        self.output = output
        self.ownsDescriptors = ownsDescriptors
        writer = DescriptorWriter(loop: loop, fd: output, settings: DescriptorWriter.Settings(
            limit: settings.outputLimit, droppableLimit: settings.liveOutputLimit))
        // Nothing is written before `start`.
        writer.isHeld = true
    }

    var isWaiting: Bool { waiting != nil }

    func start() {
        isRunning = true
        // The writer holds the core from here; `finishEnding` stops it, which lets go.
        writer.onFailure = { failure in
            if self.ending == nil { self.beginEnding(.failed("console output: \(failure)")) }
            self.finishEnding()
        }
        writer.onDrained = {
            if self.ending == nil { self.drained() } else { self.finishEnding() }
        }
        writer.isHeld = false
        inputWatch = loop.watch(fd: input, for: .readable) { _ in self.inputReady() }
    }

    /// Ends the session now, writing what the descriptor takes at once; `onEnd` is not called. A session
    /// never started still has its terminal put back and its descriptors closed.
    func close() {
        guard isRunning else {
            if ending == nil {
                ending = .endOfInput
                ends()
                closeDescriptors()
                unhook()
            }
            return
        }
        notifiesEnd = false
        if ending == nil { beginEnding(.endOfInput) }
        writer.flush()
        finishEnding()
    }

    // MARK: Input

    /// Lines queued by the mode wait in the descriptor meanwhile.
    func pauseInput() {
        if let inputWatch { loop.update(inputWatch, interest: []) }
    }

    func resumeInput() {
        if let inputWatch { loop.update(inputWatch, interest: .readable) }
    }

    private func inputReady() {
        guard ending == nil else { return }
        switch readBuffer.withUnsafeMutableBytes({ DescriptorIO.read(input, into: $0) }) {
        case .transferred(let count):
            received(Array(readBuffer[0..<count]))
        case .wouldBlock:
            return
        case .endOfFile:
            if let inputWatch { loop.unwatch(inputWatch) }
            inputWatch = nil
            inputEnded()
        case .failed(let code):
            beginEnding(.failed("console input: \(SystemError(call: "read", code: code).reason)"))
        }
    }

    // MARK: Commands

    /// Runs one line through the table and delivers what it answers.
    func execute(_ line: String) {
        deliver(table.execute(line, channel: channel))
    }

    func deliver(_ outcome: ConsoleOutcome) {
        switch outcome {
        case .nothing:
            answered()
        case .confirm(let question):
            asks(question)
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
        case .failure(let text, let document):
            write(json ? document : text)
        case .usage(let detail):
            write(error: "usage: " + (detail ?? "wrong arguments"), json: json)
        case .endStream(let text):
            stream?.end()
            write(text)
        case .stream(let newStream):
            stream?.end()
            stream = newStream
            // Until it ends, the stream holds the core (ending the session ends it). Compared by identity, so
            // that the stream's own closure does not hold the stream.
            let streamID = ObjectIdentifier(newStream)
            newStream.attach(sink: { line in
                                 guard self.ending == nil else { return }
                                 self.streamLine(line)
                             },
                             onEnd: {
                                 if let stream = self.stream, ObjectIdentifier(stream) == streamID { self.stream = nil }
                             })
        case .deferred(let later):
            waiting = later
            // Held until it is resolved or cancelled (ending the session cancels it).
            let laterID = ObjectIdentifier(later)
            later.attach { reply in
                guard let waiting = self.waiting, ObjectIdentifier(waiting) == laterID else { return }
                self.waiting = nil
                self.deliver(reply, json: json)
            }
            return
        }
        answered()
    }

    /// Ctrl-C: stops waiting for an answer and ends the stream.
    func cancelAnswer() {
        waiting?.cancel()
        waiting = nil
        stream?.end()
    }

    // MARK: Output

    func write(_ text: String) {
        guard !text.isEmpty else { return }
        let line = text.hasSuffix("\n") ? text : text + "\n"
        enqueue(channel == .terminal ? TerminalText.bytes(line) : Array(line.utf8))
    }

    func write(error message: String, json: Bool) {
        write(json ? JSONText.error(message) : "error: " + message)
    }

    func enqueue(_ bytes: [UInt8], droppable: Bool = false) {
        guard isRunning, !bytes.isEmpty else { return }
        writer.append(bytes, droppable: droppable)
    }

    /// Live lines and answer bytes dropped for a slow line since the last call.
    func takeDropCounts() -> (lines: Int, bytes: Int) { writer.takeDropCounts() }

    // MARK: Ending

    func beginEnding(_ reason: ConsoleSession.Ending) {
        guard ending == nil else { return }
        ending = reason
        if let inputWatch { loop.unwatch(inputWatch) }
        inputWatch = nil
        stream?.end()
        stream = nil
        waiting?.cancel()
        waiting = nil
        ends()
        if writer.isEmpty { finishEnding() }
    }

    private func finishEnding() {
        guard isRunning, let ending else { return }
        isRunning = false
        writer.stop()
        closeDescriptors()
        let told = notifiesEnd ? onEnd : { _ in }
        unhook()
        told(ending)
    }

    /// Lets go of the mode and the owner: the hooks hold them, and the mode holds the core.
    private func unhook() {
        onEnd = { _ in }
        received = { _ in }
        inputEnded = {}
        answered = {}
        asks = { _ in }
        streamLine = { _ in }
        drained = {}
        ends = {}
    }

    private func closeDescriptors() {
        guard ownsDescriptors else { return }
        DescriptorIO.close(input)
        if output != input { DescriptorIO.close(output) }
    }
}
