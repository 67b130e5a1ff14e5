@testable import Agent
import EventLoop
import Glibc
import SystemIO
import Testing
import TestSupport
@testable import Console

/// The console socket on a real `PollLoop`, with clients driven by the same loop: framing, several
/// clients at once, and every way a client can misbehave.
@Suite struct ConsoleSocketTests {
    final class Fixture {
        let loop = PollLoop()
        let directory = TemporaryDirectory()
        let commands: TestCommands
        let server: ConsoleSocketServer

        init(_ configure: (inout ConsoleSocketServer.Settings) -> Void = { _ in }) throws {
            commands = TestCommands(loop: loop)
            var settings = ConsoleSocketServer.Settings()
            configure(&settings)
            server = ConsoleSocketServer(loop: loop, table: commands.table,
                                         path: ConsoleSocketServer.path(dataDirectory: directory.path), settings: settings)
            try server.start()
        }

        deinit { server.stop() }

        func client(sending line: String? = nil) throws -> SocketClient {
            let client = try SocketClient(loop: loop, path: server.path)
            if let line { client.feeder.send(line) }
            return client
        }

        /// The whole answer to one line.
        func ask(_ line: String) throws -> String {
            let client = try client(sending: line + "\n")
            #expect(loop.run(until: { client.isDone }))
            return client.answer
        }
    }

    @Test func theSocketIsPrivateAndAnswersOneFramedCommandPerConnection() throws {
        let fixture = try Fixture()
        var status = stat()
        #expect(lstat(fixture.server.path, &status) == 0)
        #expect(status.st_mode & S_IFMT == S_IFSOCK)
        #expect(status.st_mode & 0o777 == 0o600)

        #expect(try fixture.ask("status") == "ok\nstatus: fine\n")
        #expect(try fixture.ask("status --json") == "ok\n{\"status\":\"fine\"}\n")
        #expect(try fixture.ask(#"echo "a b" c"#) == "ok\necho: a b c\n")
        #expect(try fixture.ask("echo") == "ok\necho: \n")
        #expect(try fixture.ask("slow") == "ok\nslow: done\n")
        #expect(try fixture.ask("bogus").hasPrefix("error\nunknown command 'bogus'; "))
        #expect(try fixture.ask("bogus --json").hasPrefix("error\n{\"error\":\"unknown command 'bogus'; "))
        #expect(try fixture.ask("status extra") == "error\nusage: status\n")
        #expect(try fixture.ask("") == "error\nno command given\n")
        #expect(fixture.commands.statusRuns == 2)

        fixture.server.stop()
        #expect(access(fixture.server.path, F_OK) != 0, "the socket file is removed")
    }

    @Test func consentThroughTheSocketIsTheYesFlag() throws {
        let fixture = try Fixture()
        #expect(try fixture.ask("keys export") == "error\nkeys export needs consent: add --yes (on a terminal the console asks instead)\n")
        #expect(fixture.commands.exports == 0)
        #expect(try fixture.ask("keys export --yes") == "ok\nkeys: exported\n")
        #expect(fixture.commands.exports == 1)
    }

    @Test func severalClientsAtOnceEachGetTheirOwnAnswer() throws {
        let fixture = try Fixture()
        let clients = try (0..<8).map { try fixture.client(sending: "echo client\($0)\n") }
        #expect(fixture.loop.run(until: { clients.allSatisfy(\.isDone) }))
        for (index, client) in clients.enumerated() {
            #expect(client.answer == "ok\necho: client\(index)\n")
        }
        #expect(fixture.server.connectionCount == 0)
    }

    @Test func aSilentClientDoesNotHoldUpOthersAndIsCutOffAfterTheTimeout() throws {
        let fixture = try Fixture { $0.requestTimeout = .seconds(1) }
        let silent = try fixture.client()
        let halfLine = try fixture.client(sending: "sta")  // never finishes its line
        #expect(fixture.loop.run(until: { fixture.server.connectionCount == 2 }))
        let start = fixture.loop.now
        #expect(try fixture.ask("status") == "ok\nstatus: fine\n")
        #expect(fixture.loop.now - start < .seconds(1), "answered while the silent ones wait")
        #expect(!silent.isDone)
        #expect(fixture.loop.run(until: { silent.isDone && halfLine.isDone }))
        #expect(silent.answer == "error\nno command received within 1 s\n")
        #expect(halfLine.answer == silent.answer)
        #expect(fixture.server.connectionCount == 0)
    }

    @Test func anOversizedLineIsRejectedAtOnce() throws {
        let fixture = try Fixture()
        let client = try fixture.client()
        client.feeder.send([UInt8](repeating: UInt8(ascii: "x"), count: 10_000))
        #expect(fixture.loop.run(until: { client.isDone }))
        #expect(client.answer == "error\nline too long (more than 4096 bytes)\n")
    }

    @Test func aMegabyteOfRandomBytesLeavesTheServerAnswering() throws {
        let fixture = try Fixture()
        for (seed, excluded) in [(UInt64(1), Set<UInt8>()), (2, [0x0A])] {
            let client = try fixture.client()
            client.feeder.send(randomBytes(1 << 20, seed: seed, excluding: excluded))
            #expect(fixture.loop.run(until: { client.isDone }))
            #expect(client.answer.hasPrefix("error\n"), "one answer, then the connection is closed")
        }
        #expect(try fixture.ask("help").hasPrefix("ok\ncommands (help COMMAND explains one"))
        #expect(fixture.server.connectionCount == 0)
    }

    @Test func aClientThatNeverReadsItsAnswerIsCutOffWithoutBlockingOthers() throws {
        let fixture = try Fixture { $0.writeStallTimeout = .milliseconds(300) }
        // Connected by hand, with nothing reading: a megabyte answer fills the socket buffer.
        let fd = try UnixSocket.connect(to: fixture.server.path)
        defer { close(fd) }
        _ = "flood\n".withCString { send(fd, $0, 6, Int32(MSG_NOSIGNAL)) }
        #expect(fixture.loop.run(until: { fixture.server.connectionCount == 1 }))
        #expect(try fixture.ask("status") == "ok\nstatus: fine\n")
        #expect(fixture.loop.run(until: { fixture.server.connectionCount == 0 }))
    }

    /// Idle connections cannot keep anyone out: at the cap, the oldest one that has sent nothing gives way.
    @Test func atTheCapTheOldestIdleConnectionGivesWayToANewOne() throws {
        let fixture = try Fixture { $0.maxConnections = 2 }
        let first = try fixture.client()
        #expect(fixture.loop.run(until: { fixture.server.connectionCount == 1 }))
        let second = try fixture.client()
        #expect(fixture.loop.run(until: { fixture.server.connectionCount == 2 }))
        let third = try fixture.client(sending: "status\n")
        #expect(fixture.loop.run(until: { third.isDone && first.isDone }))
        #expect(third.answer == "ok\nstatus: fine\n")
        #expect(first.answer == "error\nclosed: 2 console connections were open and this one had sent no command\n")
        #expect(!second.isDone)
    }

    /// Idleness is judged by what is in the socket: a connection whose line arrived in the same turn of the
    /// loop as a newcomer, not read yet, is not the one to give way (it used to be, as `isIdle` looked only
    /// at what had been read).
    @Test func aConnectionWhoseLineIsWaitingIsNeverEvictedAsIdle() throws {
        let fixture = try Fixture { $0.maxConnections = 1 }
        let waiting = try UnixSocket.connect(to: fixture.server.path)
        defer { close(waiting) }
        #expect(fixture.loop.run(until: { fixture.server.connectionCount == 1 }))
        // Its line and a newcomer arrive before the loop's next turn.
        _ = "status\n".withCString { send(waiting, $0, 7, Int32(MSG_NOSIGNAL)) }
        let newcomer = try fixture.client()
        let answer = Collector(loop: fixture.loop, fd: waiting)
        #expect(fixture.loop.run(until: { answer.ended }))
        #expect(answer.text == "ok\nstatus: fine\n")
        #expect(fixture.loop.run(until: { newcomer.isDone || fixture.server.connectionCount == 1 }))
        #expect(!newcomer.isDone || newcomer.answer == "error\nbusy: 1 console connections are open, try again\n")
    }

    /// Connections that are all working (here two `live` streams) are not cut off for a newcomer.
    @Test func connectionsBeyondTheCapAreRefusedWhenNoneIsIdle() throws {
        let fixture = try Fixture { $0.maxConnections = 2 }
        let first = try fixture.client(sending: "live\n"), second = try fixture.client(sending: "live\n")
        #expect(fixture.loop.run(until: { first.answer.contains("tick 2") && second.answer.contains("tick 2") }))
        let third = try fixture.client(sending: "status\n")
        #expect(fixture.loop.run(until: { third.isDone }))
        #expect(third.answer == "error\nbusy: 2 console connections are open, try again\n")
        #expect(!first.isDone && !second.isDone)
    }

    /// A `live` reader that falls behind is not kept on with gaps it cannot see: it is told, then closed.
    @Test func aLiveReaderThatFallsBehindIsToldAndDisconnected() throws {
        let fixture = try Fixture { $0.liveOutputLimit = 4096 }
        // Connected by hand and never read, until the agent has given up on it.
        let fd = try UnixSocket.connect(to: fixture.server.path)
        defer { close(fd) }
        var size: Int32 = 4096
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        _ = "live\n".withCString { send(fd, $0, 5, Int32(MSG_NOSIGNAL)) }
        #expect(fixture.loop.run(until: { fixture.commands.liveStopped == 1 }))
        #expect(try fixture.ask("status") == "ok\nstatus: fine\n", "the others are served meanwhile")
        // Now it reads: what it had, then the reason, then the end.
        let reader = Collector(loop: fixture.loop, fd: fd)
        #expect(fixture.loop.run(until: { reader.ended }))
        #expect(reader.text.hasPrefix("ok\ntick 1\ntick 2\n"))
        #expect(reader.text.hasSuffix("\nlive stopped: this reader fell 4 KiB behind; connect again to resume\n"), "\(reader.text.suffix(120))")
        #expect(fixture.server.connectionCount == 0)
    }

    @Test func liveStreamsJSONLinesUntilTheClientDisconnects() throws {
        let fixture = try Fixture()
        var client: SocketClient? = try fixture.client(sending: "live --json\n")
        #expect(fixture.loop.run(until: { client!.answer.contains("{\"tick\":3}\n") }))
        #expect(client!.answer.hasPrefix("ok\n{\"tick\":1}\n{\"tick\":2}\n"))
        #expect(fixture.commands.liveStopped == 0)
        client = nil
        #expect(fixture.loop.run(until: { fixture.commands.liveStopped == 1 }))
        #expect(fixture.server.connectionCount == 0)
    }

    @Test func aStaleSocketIsReplacedButALiveOneOrAFileIsNot() throws {
        let directory = TemporaryDirectory()
        let path = ConsoleSocketServer.path(dataDirectory: directory.path)
        // A socket left behind by an agent that died: bound, then closed without unlink.
        let stale = try UnixSocket.listen(at: path)
        close(stale)
        let loop = PollLoop()
        let commands = TestCommands(loop: loop)
        let server = ConsoleSocketServer(loop: loop, table: commands.table, path: path)
        try server.start()
        defer { server.stop() }
        let client = try SocketClient(loop: loop, path: path)
        client.feeder.send("status\n")
        #expect(loop.run(until: { client.isDone }))
        #expect(client.answer == "ok\nstatus: fine\n")

        let second = ConsoleSocketServer(loop: loop, table: commands.table, path: path)
        #expect(throws: ConsoleError.self) { try second.start() }

        let file = directory.path + "/not-a-socket"
        let fileDescriptor = creat(file, 0o600)
        #expect(fileDescriptor >= 0)
        close(fileDescriptor)
        let third = ConsoleSocketServer(loop: loop, table: commands.table, path: file)
        #expect(throws: ConsoleError.self) { try third.start() }
    }
}
