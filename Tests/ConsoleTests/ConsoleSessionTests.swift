@testable import Agent
import EventLoop
import Glibc
import Testing
import TestSupport
@testable import Console
import SystemIO

/// The REPL on a real `PollLoop`: on a pseudo-terminal (raw mode, editing, history, completion,
/// consent, Ctrl-C) and on pipes (no prompt, no echo, one answer per line).
@Suite struct ConsoleSessionTests {
    // MARK: Terminal

    @Test func typedKeystrokesWithEditingHistoryTabAndCtrlC() {
        let loop = PollLoop()
        let commands = TestCommands(loop: loop)
        let pty = PseudoTerminal()
        let originalFlags = pty.slaveLocalFlags
        let session = ConsoleSession(loop: loop, table: commands.table, input: pty.slave, output: pty.slave)
        #expect(session.channel == .terminal)
        let screen = Collector(loop: loop, fd: pty.master)
        let keyboard = Feeder(loop: loop, fd: pty.master)
        session.start()
        #expect(pty.slaveLocalFlags & tcflag_t(ECHO | ICANON | ISIG) == 0, "raw mode")
        #expect(loop.run(until: { screen.contains("enbeacon> ") }))

        // A typo fixed with Backspace, then Ctrl-A and Ctrl-F to insert a word, Ctrl-E to append.
        keyboard.send("ecoh\u{7F}\u{7F}ho hi\u{01}\u{06}\u{06}\u{06}\u{06}\u{06}big \u{05}!\r")
        #expect(loop.run(until: { screen.contains("echo: big hi!") }))
        #expect(commands.echoed == [["big", "hi!"]])

        // Up-arrow recalls it.
        keyboard.send("\u{1B}[A\r")
        #expect(loop.run(until: { commands.echoed.count == 2 }))
        #expect(commands.echoed.last == ["big", "hi!"])

        // Tab completes the command name.
        keyboard.send("sta\t\r")
        #expect(loop.run(until: { commands.statusRuns == 1 }))
        #expect(loop.run(until: { screen.contains("status: fine") }))

        // Ctrl-C drops the line; the next one runs.
        keyboard.send("echo abc\u{03}")
        #expect(loop.run(until: { screen.contains("^C") }))
        keyboard.send("echo x\r")
        #expect(loop.run(until: { commands.echoed.count == 3 }))
        #expect(commands.echoed.last == ["x"])
        #expect(!commands.echoed.contains(["abc"]))

        session.close()
        #expect(pty.slaveLocalFlags == originalFlags, "the terminal is put back")
    }

    @Test func consentIsAskedOnTheTerminalAndOnlyYesProceeds() {
        let loop = PollLoop()
        let commands = TestCommands(loop: loop)
        let pty = PseudoTerminal()
        let session = ConsoleSession(loop: loop, table: commands.table, input: pty.slave, output: pty.slave)
        let screen = Collector(loop: loop, fd: pty.master)
        let keyboard = Feeder(loop: loop, fd: pty.master)
        session.start()

        keyboard.send("keys export --yes\r")
        #expect(loop.run(until: { screen.contains("keys export: type yes to confirm: ") }))
        keyboard.send("y\r")
        #expect(loop.run(until: { screen.contains("not confirmed, nothing done") }))
        #expect(commands.exports == 0)

        keyboard.send("keys export\r")
        #expect(loop.run(until: { screen.text.occurrences(of: "type yes to confirm") == 2 }))
        keyboard.send("yes\r")
        #expect(loop.run(until: { screen.contains("keys: exported") }))
        #expect(commands.exports == 1)

        // Ctrl-C at the question cancels it and brings the ordinary prompt back.
        keyboard.send("keys export\r")
        #expect(loop.run(until: { screen.text.occurrences(of: "type yes to confirm") == 3 }))
        keyboard.send("\u{03}yes\r")
        #expect(loop.run(until: { screen.contains("unknown command 'yes'") }))
        #expect(commands.exports == 1)
        session.close()
    }

    /// A verification code is a one-time secret: the history file never holds `keys share CODE`.
    @Test func theHistoryFileLeavesOutVerificationCodes() throws {
        let directory = TemporaryDirectory()
        let historyFile = ConsoleHistoryFile(dataDirectory: directory.path)
        try historyFile.save(["status", "keys share 12345678 --yes", "  keys   share 'AB12CD34'", "keys share status",
                              "keys share cancel", "keys share", "keys export"])
        #expect(historyFile.load(limit: 200) == ["status", "keys share status", "keys share cancel", "keys share", "keys export"])
        let text = try #require(TextFile.read(historyFile.path, limit: 4096))
        #expect(!text.contains("12345678") && !text.contains("AB12CD34"))
    }

    @Test func historyIsKeptInTheDataDirectoryPrivatelyAndRecalledNextTime() throws {
        let directory = TemporaryDirectory()
        let historyFile = ConsoleHistoryFile(dataDirectory: directory.path)
        let loop = PollLoop()
        let commands = TestCommands(loop: loop)
        do {
            let pty = PseudoTerminal()
            let session = ConsoleSession(loop: loop, table: commands.table, input: pty.slave, output: pty.slave, history: historyFile)
            let keyboard = Feeder(loop: loop, fd: pty.master)
            let screen = Collector(loop: loop, fd: pty.master)
            session.start()
            keyboard.send("echo one\recho two\rkeys export\ryes\r")
            #expect(loop.run(until: { commands.exports == 1 }))
            session.close()
            screen.stop()
            keyboard.stop()
        }
        var status = stat()
        #expect(stat(historyFile.path, &status) == 0)
        #expect(status.st_mode & 0o777 == 0o600)
        #expect(historyFile.load(limit: 200) == ["echo one", "echo two", "keys export"], "the consent answer is not history")

        let pty = PseudoTerminal()
        let session = ConsoleSession(loop: loop, table: commands.table, input: pty.slave, output: pty.slave, history: historyFile)
        let keyboard = Feeder(loop: loop, fd: pty.master)
        let screen = Collector(loop: loop, fd: pty.master)
        session.start()
        keyboard.send("\u{1B}[A\u{1B}[A\r")
        #expect(loop.run(until: { commands.echoed.count == 3 }))
        #expect(commands.echoed.last == ["two"])
        session.close()
        screen.stop()
    }

    @Test func liveLinesPrintAboveThePromptUntilCtrlCOrLiveOff() {
        let loop = PollLoop()
        let commands = TestCommands(loop: loop)
        let pty = PseudoTerminal()
        let session = ConsoleSession(loop: loop, table: commands.table, input: pty.slave, output: pty.slave)
        let screen = Collector(loop: loop, fd: pty.master)
        let keyboard = Feeder(loop: loop, fd: pty.master)
        session.start()
        keyboard.send("live\r")
        #expect(loop.run(until: { screen.contains("tick 3") }))
        // Typing still works while lines arrive.
        keyboard.send("echo during\r")
        #expect(loop.run(until: { commands.echoed == [["during"]] }))
        keyboard.send("\u{03}")
        #expect(loop.run(until: { commands.liveStopped == 1 }))

        keyboard.send("live on\r")
        #expect(loop.run(until: { screen.text.occurrences(of: "tick 1\r") == 2 }))
        keyboard.send("live off\r")
        #expect(loop.run(until: { commands.liveStopped == 2 && screen.contains("live off") }))
        session.close()
    }

    @Test func aDeferredAnswerArrivesBeforeTheNextPrompt() {
        let loop = PollLoop()
        let commands = TestCommands(loop: loop)
        let pty = PseudoTerminal()
        let session = ConsoleSession(loop: loop, table: commands.table, input: pty.slave, output: pty.slave)
        let screen = Collector(loop: loop, fd: pty.master)
        let keyboard = Feeder(loop: loop, fd: pty.master)
        session.start()
        keyboard.send("slow\r")
        #expect(loop.run(until: { screen.contains("slow: done") }))
        #expect(loop.run(until: { screen.text.hasSuffix("enbeacon> \u{1B}[K") }))
        session.close()
    }

    @Test func ctrlDOnAnEmptyLineEndsTheSession() {
        let loop = PollLoop()
        let commands = TestCommands(loop: loop)
        let pty = PseudoTerminal()
        let originalFlags = pty.slaveLocalFlags
        let session = ConsoleSession(loop: loop, table: commands.table, input: pty.slave, output: pty.slave)
        var ending: ConsoleSession.Ending?
        session.onEnd = { ending = $0 }
        let keyboard = Feeder(loop: loop, fd: pty.master)
        let screen = Collector(loop: loop, fd: pty.master)
        session.start()
        keyboard.send("\u{04}")
        #expect(loop.run(until: { ending != nil }))
        #expect(ending == .endOfInput)
        #expect(!session.isRunning)
        #expect(pty.slaveLocalFlags == originalFlags)
        screen.stop()
    }

    @Test func aSerialDeviceIsOpenedRawAtItsBaudAndClosedAtTheEnd() throws {
        let loop = PollLoop()
        let commands = TestCommands(loop: loop)
        let pty = PseudoTerminal()
        let session = try #require(try ConsoleSession.open(.serial(path: pty.slavePath, baud: 9600), loop: loop, table: commands.table))
        #expect(session.channel == .terminal)
        var settings = termios()
        tcgetattr(pty.slave, &settings)
        #expect(cfgetospeed(&settings) == speed_t(B9600))
        #expect(settings.c_lflag & tcflag_t(ECHO | ICANON | ISIG) == 0)
        let screen = Collector(loop: loop, fd: pty.master)
        let keyboard = Feeder(loop: loop, fd: pty.master)
        session.start()
        keyboard.send("status\r")
        #expect(loop.run(until: { screen.contains("status: fine\r\n") }))
        session.show("a notice")
        #expect(loop.run(until: { screen.contains("\r\u{1B}[Ka notice\r\n") }))
        session.close()
        #expect(fcntl(pty.slave, F_GETFD) >= 0, "the test's own descriptor is untouched")

        #expect(throws: ConsoleError.self) { try ConsoleSession.open(.serial(path: "/dev/null", baud: 9600), loop: loop, table: commands.table) }
        #expect(throws: ConsoleError.self) { try ConsoleSession.open(.serial(path: "/nonexistent/tty", baud: 9600), loop: loop, table: commands.table) }
        #expect(try ConsoleSession.open(.none, loop: loop, table: commands.table) == nil)
    }

    @Test func aMegabyteOfNoiseOnTheTerminalLeavesItAnswering() {
        let loop = PollLoop()
        let commands = TestCommands(loop: loop)
        let pty = PseudoTerminal()
        let session = ConsoleSession(loop: loop, table: commands.table, input: pty.slave, output: pty.slave)
        let screen = Collector(loop: loop, fd: pty.master)
        let keyboard = Feeder(loop: loop, fd: pty.master)
        session.start()
        // Ctrl-D is left out: on an empty line it legitimately ends the session.
        keyboard.send(randomBytes(1 << 20, seed: 11, excluding: [0x04]))
        keyboard.send("\u{03}help\r")
        #expect(loop.run(until: { screen.contains("commands (help COMMAND explains one") }, timeout: .seconds(60)))
        #expect(session.isRunning)
        session.close()
    }

    // MARK: Pipe

    @Test func aPipeGetsNoPromptNoEchoAndOneAnswerPerLineInOrder() {
        let loop = PollLoop()
        let commands = TestCommands(loop: loop)
        let input = TestPipe(), output = TestPipe()
        defer { input.close(); output.close() }
        let session = ConsoleSession(loop: loop, table: commands.table, input: input.readEnd, output: output.writeEnd)
        #expect(session.channel == .pipe)
        var ending: ConsoleSession.Ending?
        session.onEnd = { ending = $0 }
        let answers = Collector(loop: loop, fd: output.readEnd)
        let script = Feeder(loop: loop, fd: input.writeEnd)
        session.start()
        script.send("""
            echo a b
            status --json

            # a comment
            bogus
            bogus --json
            keys export
            keys export --yes
            slow
            echo "after slow"
            status extra

            """)
        #expect(loop.run(until: { commands.echoed.count == 2 }))
        #expect(loop.run(until: { answers.text.hasSuffix("usage: status\n") }))
        let lines = answers.text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.count == 10)
        guard lines.count == 10 else { return }
        #expect(lines[0] == "echo: a b")
        #expect(lines[1] == #"{"status":"fine"}"#)
        #expect(lines[2].hasPrefix("error: unknown command 'bogus'"))
        #expect(lines[3].hasPrefix(#"{"error":"unknown command 'bogus'"#))
        #expect(lines[4] == "error: keys export needs consent: add --yes (on a terminal the console asks instead)")
        #expect(lines[5] == "keys: exported")
        #expect(lines[6] == "slow: done")
        #expect(lines[7] == "echo: after slow")
        #expect(lines[8] == "error: usage: status")
        #expect(lines[9] == "")
        #expect(!answers.text.contains("enbeacon>"))
        #expect(ending == nil)
        session.close()
    }

    @Test func endOfFileOnAPipeEndsTheSessionAfterTheLastAnswer() {
        let loop = PollLoop()
        let commands = TestCommands(loop: loop)
        var ends: [Int32] = [-1, -1]
        precondition(pipe(&ends) == 0)
        let output = TestPipe()
        defer { close(ends[0]); output.close() }
        let session = ConsoleSession(loop: loop, table: commands.table, input: ends[0], output: output.writeEnd)
        var ending: ConsoleSession.Ending?
        session.onEnd = { ending = $0 }
        let answers = Collector(loop: loop, fd: output.readEnd)
        session.start()
        let script = Array("live\nslow\nstatus".utf8)  // the last line without LF still counts
        _ = script.withUnsafeBytes { write(ends[1], $0.baseAddress, $0.count) }
        close(ends[1])
        #expect(loop.run(until: { ending != nil && answers.text.hasSuffix("status: fine\n") }))
        #expect(ending == .endOfInput)
        #expect(commands.liveStopped == 1, "the stream ends with the input")
        #expect(answers.text.contains("slow: done\nstatus: fine\n"))
    }

    @Test func anOverLongLineOnAPipeGetsOneErrorAndTheNextLineIsAnswered() {
        let loop = PollLoop()
        let commands = TestCommands(loop: loop)
        let input = TestPipe(), output = TestPipe()
        defer { input.close(); output.close() }
        let session = ConsoleSession(loop: loop, table: commands.table, input: input.readEnd, output: output.writeEnd)
        let answers = Collector(loop: loop, fd: output.readEnd)
        let script = Feeder(loop: loop, fd: input.writeEnd)
        session.start()
        script.send([UInt8](repeating: UInt8(ascii: "a"), count: 2 << 20) + Array("\nstatus\n".utf8))
        #expect(loop.run(until: { answers.text.hasSuffix("status: fine\n") }))
        #expect(answers.text == "error: line too long (more than 4096 bytes), discarded\nstatus: fine\n")
        session.close()
    }

    @Test func aMegabyteOfNoiseOnAPipeLeavesItAnswering() {
        let loop = PollLoop()
        let commands = TestCommands(loop: loop)
        let input = TestPipe(), output = TestPipe()
        defer { input.close(); output.close() }
        let session = ConsoleSession(loop: loop, table: commands.table, input: input.readEnd, output: output.writeEnd)
        let answers = Collector(loop: loop, fd: output.readEnd)
        let script = Feeder(loop: loop, fd: input.writeEnd)
        session.start()
        script.send(randomBytes(1 << 20, seed: 5) + Array("\nhelp\n".utf8))
        #expect(loop.run(until: { answers.contains("  status       how it is\n") }, timeout: .seconds(60)))
        #expect(answers.text.hasSuffix("commands (help COMMAND explains one; --json after a command answers in JSON):\n"
                                       + "  echo         print the words\n  flood        a megabyte of answer\n"
                                       + "  help         list the commands, or explain one\n  keys export  the keys\n"
                                       + "  live         a tick every 2 ms\n  slow         answers after 20 ms\n"
                                       + "  status       how it is\n"))
        #expect(session.isRunning)
        session.close()
    }

    @Test func aReaderThatStopsReadingCannotBlockTheLoop() {
        let loop = PollLoop()
        let commands = TestCommands(loop: loop)
        let input = TestPipe(), output = TestPipe()
        defer { input.close(); output.close() }
        let session = ConsoleSession(loop: loop, table: commands.table, input: input.readEnd, output: output.writeEnd)
        let script = Feeder(loop: loop, fd: input.writeEnd)
        session.start()
        // Nobody reads `output`: a megabyte answer fills the pipe, the rest waits or is dropped.
        script.send("flood\nflood\nflood\nlive\necho still here\n")
        var ticks = 0
        func tick() {
            ticks += 1
            loop.schedule(after: .milliseconds(1)) { tick() }
        }
        tick()
        #expect(loop.run(until: { commands.echoed == [["still", "here"]] && ticks > 50 }))
        session.close()
        #expect(commands.liveStopped == 1)
    }
}
