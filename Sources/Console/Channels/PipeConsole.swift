/// The console on a pipe or a file, for scripts: no prompt, no echo, one answer per line, in order.
///
/// Lines that arrive while an answer is being waited for (`sync now`) wait too, and nothing more is read
/// until they have been worked off: the pipe itself holds the rest. End of input ends the session once
/// the last line has been answered.
///
/// The core's hooks hold the pipe console strongly (the board build has no weak references) until the
/// session has ended, when the core lets go of them.
final class PipeConsole {
    private let core: ConsoleSessionCore
    private var reader: BoundedLineReader
    private var queuedInput: [BoundedLineReader.Event] = []
    private var inputEnded = false
    /// True while queued lines are being worked off, so that answering one does not recurse into the
    /// next (a 4 KiB read can hold two thousand lines).
    private var drainingQueuedInput = false

    init(core: ConsoleSessionCore, maxLineBytes: Int) {
        self.core = core
        reader = BoundedLineReader(maxLineBytes: maxLineBytes)
        core.received = { bytes in
            for event in self.reader.feed(bytes) { self.pipeInput(event) }
        }
        core.inputEnded = { self.inputHasEnded() }
        core.answered = { self.readyForNextLine() }
        // `ConsentRule` never asks on a pipe; refuse rather than wait for a "yes" if that ever changes.
        core.asks = { question in
            core.deliver(.reply(.error("\(question.command) needs consent: add --yes"), json: false))
        }
        core.streamLine = { line in core.enqueue(Array((line + "\n").utf8), droppable: true) }
    }

    func start() {
        core.start()
    }

    func show(_ text: String) {
        core.enqueue(Array((text + "\n").utf8))
    }

    private func pipeInput(_ event: BoundedLineReader.Event) {
        guard !core.isWaiting, queuedInput.isEmpty else {
            queuedInput.append(event)
            core.pauseInput()
            return
        }
        run(event)
    }

    private func run(_ event: BoundedLineReader.Event) {
        switch event {
        case .line(let line): core.execute(line)
        case .tooLong: core.write(error: "line too long (more than \(reader.maxLineBytes) bytes), discarded", json: false)
        }
    }

    private func inputHasEnded() {
        inputEnded = true
        if let last = reader.finish() { pipeInput(last) }
        if !core.isWaiting, queuedInput.isEmpty { core.beginEnding(.endOfInput) }
    }

    /// After an answer: the lines that waited meanwhile, then more input (or the end).
    private func readyForNextLine() {
        guard core.ending == nil, !core.isWaiting, !drainingQueuedInput else { return }
        drainingQueuedInput = true
        while core.ending == nil, !core.isWaiting, !queuedInput.isEmpty {
            run(queuedInput.removeFirst())
        }
        drainingQueuedInput = false
        guard core.ending == nil, !core.isWaiting, queuedInput.isEmpty else { return }
        if inputEnded {
            core.beginEnding(.endOfInput)
        } else {
            core.resumeInput()
        }
    }
}
