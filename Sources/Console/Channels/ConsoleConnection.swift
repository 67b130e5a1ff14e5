import ENCore
import EventLoop
import SystemIO

/// One client of the console socket: read one line, answer it (see `ConsoleFraming`), close.
///
/// Every way a client can misbehave ends in a close, never in a wait: no line within the request
/// timeout, a line over the limit, a client that stops reading its answer for the stall timeout, a
/// `live` reader that falls `liveOutputLimit` behind (told so in a last line), or one that disconnects.
/// A `live` stream otherwise runs until the client closes (or shuts down its sending side).
///
/// From `start` until `close` the loop's watch and timer, the writer, a running stream and an awaited answer
/// hold the connection (no weak references: the board build has none), and it holds its server through
/// `onClose`; `close` cancels, ends and unhooks them all, so a closed connection is held by nobody.
final class ConsoleConnection {
    private enum Phase {
        case readingRequest
        /// Writing a finished answer; the connection closes once it is out.
        case answering
        case waitingForAnswer
        case streaming
        case closed
    }

    let fd: Int32
    private let loop: any EventLoop
    private let table: CommandTable
    private let settings: ConsoleSocketServer.Settings
    private let log: Logger
    private var onClose: (ConsoleConnection) -> Void

    private var phase = Phase.readingRequest
    private var reader: BoundedLineReader
    private let writer: DescriptorWriter
    private var watch: WatchHandle?
    private var requestTimer: TimerHandle?
    private var stream: ConsoleStream?
    private var waiting: ConsoleDeferredReply?
    private var readsInput = true
    private var scratch = [UInt8](repeating: 0, count: 4096)

    /// Bytes of a request have been received.
    private var receivedAny = false

    /// Has sent nothing, not even bytes still waiting in the socket to be read: the connection the server may
    /// close to make room. A client whose line is in the socket but not read yet is not idle.
    var isIdle: Bool { phase == .readingRequest && !receivedAny && !DescriptorIO.hasBytesWaiting(fd) }

    init(fd: Int32, loop: any EventLoop, table: CommandTable, settings: ConsoleSocketServer.Settings, log: Logger,
         onClose: @escaping (ConsoleConnection) -> Void) {
        self.fd = fd
        self.loop = loop
        self.table = table
        self.settings = settings
        self.log = log
        self.onClose = onClose
        reader = BoundedLineReader(maxLineBytes: settings.maxLineBytes)
        writer = DescriptorWriter(loop: loop, fd: fd, settings: DescriptorWriter.Settings(
            limit: settings.replyLimit, droppableLimit: settings.liveOutputLimit, stallTimeout: settings.writeStallTimeout))
    }

    func start() {
        writer.onFailure = { _ in self.close() }
        writer.onDrained = {
            if self.phase == .answering { self.close() }
        }
        watch = loop.watch(fd: fd, for: .readable) { readiness in self.ready(readiness) }
        requestTimer = loop.schedule(after: settings.requestTimeout) {
            guard self.phase == .readingRequest else { return }
            self.requestTimer = nil
            self.finish(ok: false, body: "no command received within \(Self.describe(self.settings.requestTimeout))")
        }
    }

    /// Answers a connection that never sent its command with `reason`, as far as one non-blocking write
    /// goes, and closes it: the server needs its slot.
    func evict(_ reason: String) {
        guard phase == .readingRequest else { return }
        phase = .answering
        _ = ConsoleFraming.answer(ok: false, body: reason).withUnsafeBytes { DescriptorIO.send(fd, $0) }
        close()
    }

    /// Closes at once, dropping anything unsent; ends a stream and cancels a deferred answer.
    func close() {
        guard phase != .closed else { return }
        phase = .closed
        if let watch { loop.unwatch(watch) }
        watch = nil
        if let requestTimer { loop.cancel(requestTimer) }
        requestTimer = nil
        writer.stop()
        // Reading what the client sent but we never needed keeps the kernel from reporting a reset to a
        // client that is still reading its answer.
        _ = scratch.withUnsafeMutableBytes { DescriptorIO.receive(fd, into: $0) }
        DescriptorIO.close(fd)
        stream?.end()
        stream = nil
        waiting?.cancel()
        waiting = nil
        let told = onClose
        onClose = { _ in }
        told(self)
    }

    // MARK: Input

    private func ready(_ readiness: FDReadiness) {
        guard phase != .closed else { return }
        if readsInput, !readiness.isDisjoint(with: [.readable, .hangup, .error]) {
            readInput(readiness)
        } else if !readiness.isDisjoint(with: [.hangup, .error, .invalid]) {
            close()
        }
    }

    private func readInput(_ readiness: FDReadiness) {
        let outcome = scratch.withUnsafeMutableBytes { DescriptorIO.receive(fd, into: $0) }
        switch outcome {
        case .transferred(let count):
            guard phase == .readingRequest else { return }  // after the request: ignored
            receivedAny = true
            for event in reader.feed(scratch[0..<count]) {
                guard phase == .readingRequest else { break }
                switch event {
                case .line(let line): request(line)
                case .tooLong: finish(ok: false, body: "line too long (more than \(settings.maxLineBytes) bytes)")
                }
            }
        case .wouldBlock:
            return
        case .endOfFile:
            switch phase {
            case .readingRequest:
                // A client may shut down its sending side right after its line instead of ending it.
                if case .line(let line)? = reader.finish() { request(line) } else { close() }
            case .streaming:
                close()
            case .waitingForAnswer, .answering:
                // Gone for good (hangup), or only done sending and still reading its answer.
                if readiness.contains(.hangup) { return close() }
                readsInput = false
                updateInterest()
            case .closed:
                return
            }
        case .failed:
            close()
        }
    }

    private func request(_ line: String) {
        if let requestTimer { loop.cancel(requestTimer) }
        requestTimer = nil
        switch table.execute(line, channel: .socket) {
        case .nothing:
            finish(ok: false, body: "no command given")
        case .confirm(let question):
            // `ConsentRule` never asks on the socket; refuse rather than hang if that ever changes.
            finish(ok: false, body: "\(question.command) needs consent: add --yes")
        case .reply(let reply, let json):
            answer(reply, json: json)
        }
    }

    private func answer(_ reply: ConsoleReply, json: Bool) {
        switch reply {
        case .text(let text), .json(let text), .endStream(let text):
            finish(ok: true, body: text)
        case .error(let message):
            finish(ok: false, body: json ? JSONText.error(message) : message)
        case .failure(let text, let document):
            finish(ok: false, body: json ? document : text)
        case .usage(let detail):
            finish(ok: false, body: "usage: " + (detail ?? "wrong arguments"))
        case .stream(let newStream):
            phase = .streaming
            stream = newStream
            send(ConsoleFraming.answer(ok: true, body: ""), droppable: false)
            // Until it ends, the stream holds the connection (`close` ends it).
            newStream.attach(sink: { line in self.streamLine(line) },
                             onEnd: {
                                 guard self.phase == .streaming else { return }
                                 self.stream = nil
                                 self.phase = .answering
                                 if self.writer.isEmpty { self.close() }
                             })
        case .deferred(let later):
            phase = .waitingForAnswer
            waiting = later
            updateInterest()
            // Held until it is resolved or cancelled (`close` cancels it).
            later.attach { reply in
                guard self.phase == .waitingForAnswer else { return }
                self.waiting = nil
                self.answer(reply, json: json)
            }
        }
    }

    // MARK: Output

    /// Queues the whole answer; the connection closes once it is written.
    private func finish(ok: Bool, body: String) {
        guard phase != .closed else { return }
        phase = .answering
        send(ConsoleFraming.answer(ok: ok, body: body), droppable: false)
    }

    private func send(_ bytes: [UInt8], droppable: Bool) {
        guard phase != .closed else { return }
        writer.append(bytes, droppable: droppable)
        updateInterest()
    }

    /// A `live` line. A reader that has fallen `liveOutputLimit` behind is not kept on with gaps it cannot
    /// see: the stream ends, and a last line (not droppable) tells it why before the connection closes.
    private func streamLine(_ line: String) {
        guard phase == .streaming else { return }
        // A failing write closes the connection from inside append: nothing more to do then.
        if writer.append(Array((line + "\n").utf8), droppable: true) || phase != .streaming { return }
        let behind = settings.liveOutputLimit / 1024
        log.info("console socket: a live reader fell \(behind) KiB behind and was disconnected")
        let ended = stream
        stream = nil
        phase = .answering
        ended?.end()
        send(Array("live stopped: this reader fell \(behind) KiB behind; connect again to resume\n".utf8),
             droppable: false)
    }

    /// "5 s" or "300 ms": for a person reading the error.
    static func describe(_ duration: Duration) -> String {
        let milliseconds = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        return milliseconds % 1000 == 0 ? "\(milliseconds / 1000) s" : "\(milliseconds) ms"
    }

    private func updateInterest() {
        guard let watch else { return }
        var interest: FDInterest = []
        if readsInput && phase != .answering { interest.insert(.readable) }
        loop.update(watch, interest: interest)
    }
}
