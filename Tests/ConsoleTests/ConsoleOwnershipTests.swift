import EventLoop
import Glibc
import Testing
import TestSupport
@testable import Console
import SystemIO

/// The console's channels hold their callbacks strongly (the board build, Embedded Swift, has no weak
/// references), so each must let go of everything when it is finished: a closed connection, a stopped socket
/// server and an ended session are held by their owners alone. A leak here is an agent that grows with every
/// `enbeacon ctl` it ever answered, or a `live` producer that keeps feeding a console nobody reads.
///
/// Each test holds a weak reference to the command table (every channel holds its table) or to the channel
/// itself, and holds the `live` stream and an unanswered deferred reply strongly, as the agent's producers do.
@Suite("Console ownership without weak references")
struct ConsoleOwnershipTests {
    /// A table whose `live` never ends by itself and whose `wait` is never answered: only the channel can let
    /// go of them.
    final class Producers {
        let table = CommandTable()
        private(set) var streams: [ConsoleStream] = []
        private(set) var replies: [ConsoleDeferredReply] = []
        private(set) var cancelled = 0

        init() {
            table.register(ConsoleCommand("live", summary: "a stream that ends when its channel ends it") { [unowned self] _ in
                let stream = ConsoleStream()
                streams.append(stream)
                stream.send("tick")
                return .stream(stream)
            })
            table.register(ConsoleCommand("wait", summary: "an answer that never comes") { [unowned self] _ in
                let reply = ConsoleDeferredReply { [unowned self] in cancelled += 1 }
                replies.append(reply)
                return .deferred(reply)
            })
            table.register(ConsoleCommand("status", summary: "how it is") { _ in .text("status: fine") })
        }

        var streamsEnded: Bool { streams.allSatisfy { $0.isEnded } }
    }

    /// Both ends of a unix stream socket pair, non-blocking.
    static func socketPair() -> (Int32, Int32) {
        var ends: [Int32] = [-1, -1]
        precondition(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0, "socketpair failed")
        for end in ends { _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK) }
        return (ends[0], ends[1])
    }

    // MARK: The socket

    @Test("a connection is released once it closes, whether it answered, streamed or waited",
          arguments: ["status", "live", "wait"])
    func closedConnectionIsReleased(line: String) {
        let loop = PollLoop()
        let producers = Producers()
        let (agentEnd, clientEnd) = Self.socketPair()
        var clientOpen = true
        defer { if clientOpen { close(clientEnd) } }
        weak var released: ConsoleConnection?
        var closed = 0
        do {
            let connection = ConsoleConnection(fd: agentEnd, loop: loop, table: producers.table,
                                               settings: ConsoleSocketServer.Settings(), log: .silent) { _ in closed += 1 }
            released = connection
            connection.start()
        }
        let answer = Collector(loop: loop, fd: clientEnd)
        _ = Array((line + "\n").utf8).withUnsafeBytes { send(clientEnd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        #expect(loop.run(until: { answer.text.hasPrefix("ok\n") || producers.replies.count == 1 }))
        if line != "status" {
            // A stream runs, and a deferred answer is awaited, until the client goes away.
            #expect(released != nil && closed == 0)
            answer.stop()
            close(clientEnd)
            clientOpen = false
        }
        #expect(loop.run(until: { closed == 1 }))
        #expect(released == nil, "a closed connection is still held (by the loop, its writer, its stream or its answer)")
        #expect(producers.streamsEnded)
        #expect(producers.cancelled == (line == "wait" ? 1 : 0))
        answer.stop()
    }

    @Test("a stopped server is released with its listener and every connection, working or idle")
    func stoppedServerIsReleased() throws {
        let loop = PollLoop()
        let directory = TemporaryDirectory()
        weak var releasedServer: ConsoleSocketServer?
        weak var releasedTable: CommandTable?
        var streams: [ConsoleStream] = []
        var replies: [ConsoleDeferredReply] = []
        var cancelled = 0
        var clients: [SocketClient] = []
        do {
            let producers = Producers()
            let server = ConsoleSocketServer(loop: loop, table: producers.table,
                                             path: ConsoleSocketServer.path(dataDirectory: directory.path))
            try server.start()
            for line in ["live\n", "wait\n", "sta"] {
                let client = try SocketClient(loop: loop, path: server.path)
                client.feeder.send(line)
                clients.append(client)
            }
            #expect(loop.run(until: { server.connectionCount == 3 && producers.streams.count == 1 && producers.replies.count == 1 }))
            #expect(try Self.ask("status", at: server.path, on: loop) == "ok\nstatus: fine\n")
            server.stop()
            #expect(server.connectionCount == 0)
            streams = producers.streams
            replies = producers.replies
            cancelled = producers.cancelled
            releasedServer = server
            releasedTable = producers.table
        }
        #expect(releasedServer == nil, "a stopped server is still held (by the loop or a connection)")
        #expect(releasedTable == nil, "a connection of a stopped server is still held")
        #expect(streams.allSatisfy { $0.isEnded } && replies.allSatisfy { $0.isCancelled } && cancelled == 1)
        #expect(loop.run(until: { clients.allSatisfy { $0.isDone } }), "every client was hung up on")
    }

    static func ask(_ line: String, at path: String, on loop: PollLoop) throws -> String {
        let client = try SocketClient(loop: loop, path: path)
        client.feeder.send(line + "\n")
        #expect(loop.run(until: { client.isDone }))
        return client.answer
    }

    // MARK: Sessions

    enum PipeEnding: String, CaseIterable, CustomStringConvertible {
        case endOfInput = "end of input", closed = "close()", outputGone = "a reader that hung up"
        var description: String { rawValue }
    }

    @Test("a pipe console is released once it ends, however it ends", arguments: PipeEnding.allCases)
    func endedPipeConsoleIsReleased(ending: PipeEnding) {
        let loop = PollLoop()
        let input = TestPipe()
        var inputWriteEndOpen = true
        let (output, reader) = Self.socketPair()
        defer {
            close(input.readEnd)
            if inputWriteEndOpen { close(input.writeEnd) }
            close(output)
            close(reader)
        }
        weak var releasedTable: CommandTable?
        var streams: [ConsoleStream] = []
        var ended: ConsoleSession.Ending?
        do {
            let producers = Producers()
            let session = ConsoleSession(loop: loop, table: producers.table, input: input.readEnd, output: output)
            #expect(session.channel == .pipe)
            // An owner whose end handler holds the session, as one that drops it there would.
            session.onEnd = { ending in
                ended = ending
                _ = session
            }
            let answers = Collector(loop: loop, fd: reader)
            session.start()
            _ = Array("status\nlive\n".utf8).withUnsafeBytes { write(input.writeEnd, $0.baseAddress, $0.count) }
            #expect(loop.run(until: { answers.contains("tick\n") }))
            answers.stop()
            switch ending {
            case .endOfInput:
                close(input.writeEnd)
                inputWriteEndOpen = false
            case .closed:
                session.close()
            case .outputGone:
                shutdown(reader, Int32(SHUT_RDWR))
                _ = Array("status\n".utf8).withUnsafeBytes { write(input.writeEnd, $0.baseAddress, $0.count) }
            }
            #expect(loop.run(until: { !session.isRunning }))
            streams = producers.streams
            releasedTable = producers.table
        }
        #expect(ending == .closed ? ended == nil : ended != nil, "onEnd is called when the session ends by itself")
        #expect(releasedTable == nil, "an ended pipe console is still held (by the loop, its writer or its hooks)")
        #expect(streams.allSatisfy { $0.isEnded })
    }

    enum TerminalEnding: String, CaseIterable, CustomStringConvertible {
        case controlD = "Ctrl-D", closedMidEscape = "close() with an escape and a history save pending"
        case hangup = "the terminal hung up"
        var description: String { rawValue }
    }

    @Test("a terminal console is released once it ends, however it ends", arguments: TerminalEnding.allCases)
    func endedTerminalConsoleIsReleased(ending: TerminalEnding) throws {
        let loop = PollLoop()
        let directory = TemporaryDirectory()
        weak var releasedTable: CommandTable?
        var streams: [ConsoleStream] = []
        var pty: PseudoTerminal? = PseudoTerminal()
        do {
            let producers = Producers()
            // Opened as a serial line, the session has a descriptor of its own: the pty can hang up under it.
            // Timers that cannot fire during the test: `close` must cancel them.
            var settings = ConsoleSession.Settings()
            settings.escapeTimeout = .seconds(600)
            settings.historySaveDelay = .seconds(600)
            let session = try #require(try ConsoleSession.open(.serial(path: pty!.slavePath, baud: 115_200), loop: loop,
                                                               table: producers.table,
                                                               history: ConsoleHistoryFile(dataDirectory: directory.path),
                                                               settings: settings))
            var ended = false
            session.onEnd = { _ in
                ended = true
                _ = session
            }
            let screen = Collector(loop: loop, fd: pty!.master)
            let keyboard = Feeder(loop: loop, fd: pty!.master)
            session.start()
            keyboard.send("live\r")
            #expect(loop.run(until: { screen.contains("tick") }))
            switch ending {
            case .controlD:
                keyboard.send("\u{04}")
                #expect(loop.run(until: { ended }))
            case .closedMidEscape:
                keyboard.send("status\r\u{1B}")
                #expect(loop.run(until: { screen.contains("status: fine") }))
                session.close()
            case .hangup:
                screen.stop()
                keyboard.stop()
                pty = nil
                #expect(loop.run(until: { ended }))
            }
            screen.stop()
            keyboard.stop()
            #expect(!session.isRunning)
            streams = producers.streams
            releasedTable = producers.table
        }
        #expect(releasedTable == nil, "an ended terminal console is still held (by the loop, a timer or its hooks)")
        #expect(streams.allSatisfy { $0.isEnded })
    }

    @Test("a session closed before it started holds nothing")
    func neverStartedSessionIsReleased() {
        let loop = PollLoop()
        let pty = PseudoTerminal()
        weak var releasedTable: CommandTable?
        do {
            let producers = Producers()
            let session = ConsoleSession(loop: loop, table: producers.table, input: pty.slave, output: pty.slave)
            session.onEnd = { _ in _ = session }
            session.close()
            releasedTable = producers.table
        }
        #expect(releasedTable == nil)
    }

    // MARK: The table

    @Test("a table with its built-in help is released, and help still lists and completes its commands")
    func tableWithHelpIsReleased() {
        weak var released: CommandTable?
        do {
            let table = CommandTable()
            table.register(ConsoleCommand("keys export", summary: "the keys") { _ in .text("exported") })
            guard case .reply(.text(let list), _) = table.execute("help", channel: .pipe) else {
                Issue.record("help did not answer with text")
                return
            }
            #expect(list.contains("keys export") && list.contains("help"))
            #expect(table.completions(forLinePrefix: "help ke").candidates == ["keys"])
            #expect(table.completions(forLinePrefix: "help keys ").candidates == ["export"])
            released = table
        }
        #expect(released == nil, "the table's own help holds it")
    }
}
