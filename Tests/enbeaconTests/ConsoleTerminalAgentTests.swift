import Foundation
import Testing
import SystemIO

/// The REPL of the real agent (`enbeacon run` on the virtual board) as a member of staff uses it:
/// keys typed into a pseudo-terminal, what the screen then shows read back through a small terminal
/// model. Also the same REPL on a serial line (`--console /dev/pts/N`) and the plain one on a pipe.
///
/// Nothing sleeps: every step waits, with a 20 s deadline, for what the screen must show, and a
/// failure prints the screen, the raw bytes and the agent's log. The agent's log (stderr) goes to a
/// pipe in most tests, so that the screen holds only the console; `logLinesGoAboveTheLineBeingTyped`
/// puts it on the terminal too, as a person running `enbeacon` in a terminal has it. The suite's time limit
/// scales with `Enbeacon.timeScale` (an emulated agent).
@Suite(.serialized, .timeLimit(.minutes(2 * Enbeacon.timeScale)))
struct ConsoleTerminalAgentTests {
    static let prompt = "enbeacon> "

    // MARK: - Terminal on stdin

    @Test func editingCompletionHistoryCancelAndEndOfInputOnTheAgentsTerminal() throws {
        let dir = try Self.temporaryDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let pty = try PseudoTerminal()
        let slave = FileHandle(fileDescriptor: pty.slave, closeOnDealloc: false)
        let agent = try Self.startAgent(["run", "--data", dir, "--seconds", "120"], stdin: slave, stdout: slave)
        defer { agent.stop() }
        let console = Console(fd: pty.master, agent: agent)

        try console.waitForPrompt(after: -1)
        #expect(pty.localFlags & tcflag_t(ICANON | ECHO) == 0, "the agent puts its terminal in raw mode")

        // Typed with a typo, fixed with Left, Backspace, Right and an insertion: `status` runs.
        try console.type("statsu", expect: "statsu", cursor: 6)
        try console.type("\u{1B}[D", expect: "statsu", cursor: 5)
        try console.type("\u{7F}", expect: "statu", cursor: 4)
        try console.type("\u{1B}[C", expect: "statu", cursor: 5)
        try console.type("s", expect: "status", cursor: 6)
        var answer = try console.enter()
        #expect(answer.echoed == Self.prompt + "status")
        #expect(answer.rows.contains { $0.hasPrefix("broadcasting ") }, "\(answer.rows)")
        #expect(answer.rows.contains { $0.hasPrefix("clock ") }, "\(answer.rows)")

        // Ctrl-W, Ctrl-U, then `tus`, Ctrl-A, `sta`, Ctrl-E: `status` again.
        try console.type("bogus words", expect: "bogus words", cursor: 11)
        try console.type("\u{17}", expect: "bogus ", cursor: 6)
        try console.type("\u{15}", expect: "", cursor: 0)
        try console.type("tus", expect: "tus", cursor: 3)
        try console.type("\u{01}", expect: "tus", cursor: 0)
        try console.type("sta", expect: "status", cursor: 3)
        try console.type("\u{05}", expect: "status", cursor: 6)
        answer = try console.enter()
        #expect(answer.rows.contains { $0.hasPrefix("broadcasting ") }, "\(answer.rows)")
        #expect(!console.text.contains("unknown command"), "nothing mistyped was submitted\n\(console.transcript)")

        // Tab completes a command, then a configuration key, whose value Enter shows.
        try console.type("sta\t", expect: "status ", cursor: 7)
        answer = try console.enter()
        #expect(answer.rows.contains { $0.hasPrefix("broadcasting ") }, "\(answer.rows)")
        try console.type("config get keyserver.st\t", expect: "config get keyserver.style ", cursor: 27)
        answer = try console.enter()
        #expect(answer.rows == ["google"])

        // Ctrl-C drops a half-typed line: no answer, a fresh prompt on the next row.
        try console.type("sync no", expect: "sync no", cursor: 7)
        answer = try console.enter("\u{03}")
        #expect(answer.echoed == Self.prompt + "sync no^C")
        #expect(answer.rows.isEmpty, "a cancelled line runs nothing: \(answer.rows)")

        // Up recalls the previous command (the cancelled line is not in the history); Enter runs it again.
        try console.type("\u{1B}[A", expect: "config get keyserver.style ", cursor: 27)
        answer = try console.enter()
        #expect(answer.rows == ["google"])
        #expect(console.screen.rows.filter { $0 == "google" }.count == 2)

        // A typo: one error line with a suggestion, and a fresh prompt.
        try console.type("stauts", expect: "stauts", cursor: 6)
        answer = try console.enter()
        #expect(answer.rows == ["error: unknown command 'stauts'; did you mean 'status'?"])

        // Ctrl-D on an empty line ends the console and should stop the agent promptly.
        try console.type("\u{04}")
        let exited = agent.waitForExit(timeout: 5)
        #expect(exited == 0, "the agent exits with 0 within 5 s of Ctrl-D\n\(console.transcript)")
        if exited == nil { agent.stop() }
        #expect(agent.waitForExit(timeout: 10) == 0)
        #expect(pty.localFlags & tcflag_t(ICANON | ECHO) == tcflag_t(ICANON | ECHO), "the terminal is given back cooked")

        // The history is in the data directory, private, with what was run (and not the cancelled line).
        let historyPath = dir + "/console_history"
        var info = stat()
        #expect(stat(historyPath, &info) == 0, "\(historyPath) exists")
        #expect(info.st_mode & 0o777 == 0o600)
        let history = (try? String(contentsOfFile: historyPath, encoding: .utf8)) ?? ""
        let entries = history.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(entries.contains("status"), "\(entries)")
        #expect(entries.contains("config get keyserver.style"), "\(entries)")
        #expect(entries.last == "stauts", "\(entries)")
        #expect(!entries.contains("sync no"), "\(entries)")

        // The next agent on the same data directory recalls it, and `quit` stops it.
        let again = try Self.startAgent(["run", "--data", dir, "--seconds", "120"], stdin: slave, stdout: slave)
        defer { again.stop() }
        let next = Console(fd: pty.master, agent: again)
        try next.waitForPrompt(after: -1)
        try next.type("\u{1B}[A", expect: "stauts", cursor: 6)
        try next.type("\u{15}quit", expect: "quit", cursor: 4)
        _ = try next.enter(waitForPrompt: false)
        try next.wait(for: "the answer to quit") { $0.screen.rows.contains("stopping") }
        #expect(again.waitForExit(timeout: 20) == 0, "quit stops the agent with 0\n\(next.transcript)")
    }

    // MARK: - Serial line

    /// With the log on the same terminal, a log line (here the one SIGHUP writes) is printed above the
    /// prompt and the half-typed line is drawn again under it, ready to be finished.
    @Test func logLinesGoAboveTheLineBeingTyped() throws {
        let dir = try Self.temporaryDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let config = dir + ".conf"
        try "risk.threshold = 2\n".write(toFile: config, atomically: false, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: config) }
        let pty = try PseudoTerminal()
        let slave = FileHandle(fileDescriptor: pty.slave, closeOnDealloc: false)
        let agent = try Self.startAgent(["run", "--data", dir, "--config", config, "--seconds", "120"],
                                     stdin: slave, stdout: slave, stderr: slave)
        defer { agent.stop() }
        let console = Console(fd: pty.master, agent: agent)
        // The start-up lines (controller ready, the day's key) come after the first prompt.
        try console.wait(for: "the day's key to be logged, then a prompt") {
            $0.text.contains("new temporary exposure key") && $0.screen.currentRow == Self.prompt
        }
        try console.type("statu", expect: "statu", cursor: 5)
        kill(agent.processIdentifier, SIGHUP)
        try console.wait(for: "the SIGHUP log line above the line being typed") {
            $0.screen.rows.contains { $0.contains("SIGHUP: reloaded") }
                && $0.screen.currentRow == Self.prompt + "statu" && $0.screen.column == Self.prompt.count + 5
        }
        let logRow = try #require(console.screen.rows.lastIndex { $0.contains("SIGHUP: reloaded") })
        #expect(!console.screen.rows[logRow].contains(Self.prompt), "the log line has a row of its own")
        #expect(console.screen.rows.filter { $0.hasPrefix(Self.prompt) && $0.contains(" info ") }.isEmpty,
                "no log line is written into a prompt row\n\(console.transcript)")
        try console.type("s", expect: "status", cursor: 6)
        let answer = try console.enter()
        #expect(answer.rows.contains { $0.hasPrefix("broadcasting ") }, "\(answer.rows)")
        _ = try console.enter("quit\r", waitForPrompt: false)
        #expect(agent.waitForExit(timeout: 10) == 0)
    }

    @Test func theSameReplOnASerialLineAndQuit() throws {
        let dir = try Self.temporaryDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let pty = try PseudoTerminal()
        let path = try pty.slavePath()
        let agent = try Self.startAgent(["run", "--data", dir, "--seconds", "120", "--console", path],
                                     stdin: FileHandle.nullDevice, stdout: FileHandle.nullDevice)
        defer { agent.stop() }
        let console = Console(fd: pty.master, agent: agent)

        try console.waitForPrompt(after: -1)
        try console.type("sta\t", expect: "status ", cursor: 7)
        var answer = try console.enter()
        #expect(answer.rows.contains { $0.hasPrefix("broadcasting ") }, "\(answer.rows)")
        try console.type("config get keyserver.st\t", expect: "config get keyserver.style ", cursor: 27)
        answer = try console.enter()
        #expect(answer.rows == ["google"])

        try console.type("quit", expect: "quit", cursor: 4)
        _ = try console.enter(waitForPrompt: false)
        try console.wait(for: "the answer to quit") { $0.screen.rows.contains("stopping") }
        #expect(agent.waitForExit(timeout: 20) == 0, "quit stops the agent with 0\n\(console.transcript)")
        #expect(pty.localFlags & tcflag_t(ICANON | ECHO) == tcflag_t(ICANON | ECHO),
                "the serial line's settings are put back")
    }

    // MARK: - Pipe

    /// ConsoleGarbageTests already feeds a pipe 1 MB of noise; this is the ordinary script.
    @Test func aPipeGetsOneAnswerPerLineInOrderAndItsEndLeavesTheAgentRunning() throws {
        let dir = try Self.temporaryDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let input = Pipe(), output = Pipe()
        let agent = try Self.startAgent(["run", "--data", dir, "--seconds", "120"],
                                     stdin: input.fileHandleForReading, stdout: output.fileHandleForWriting)
        defer { agent.stop() }
        try input.fileHandleForReading.close()
        try output.fileHandleForWriting.close()
        let console = Console(fd: output.fileHandleForReading.fileDescriptor, agent: agent)

        // Two commands with a mistake between them, a blank line and a bad key; one answer each, in order.
        let script = "status\nstauts\n\nconfig get no.such\nstatus\nconfig get keyserver.style\n"
        input.fileHandleForWriting.write(Data(script.utf8))
        try console.wait(for: "the answer to the last line") { $0.text.hasSuffix("\ngoogle\n") }
        let lines = console.text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let typo = try #require(lines.firstIndex(of: "error: unknown command 'stauts'; did you mean 'status'?"),
                                "\(lines)")
        let statusBlock = Array(lines[0..<typo])
        #expect(statusBlock.first?.hasPrefix("badge ") == true && statusBlock.contains { $0.hasPrefix("clock ") }
                && statusBlock.contains { $0.hasPrefix("broadcasting ") },
                "\(lines)")
        #expect(!statusBlock.contains { $0.hasPrefix("error") }, "\(lines)")
        try #require(lines.count == 2 * typo + 4, "status, error, error, status, google and the final newline: \(lines)")
        #expect(lines[typo + 1].hasPrefix("error: ") && lines[typo + 1].contains("no.such"), "\(lines)")
        let firstWords = { (block: ArraySlice<String>) in block.map { $0.prefix { $0 != " " } } }
        #expect(firstWords(lines[(typo + 2)..<(2 * typo + 2)]) == firstWords(lines[0..<typo]), "\(lines)")
        #expect(lines.suffix(2) == ["google", ""], "\(lines)")
        #expect(!console.text.contains(Self.prompt), "no prompt on a pipe")
        #expect(!lines.contains("status") && !lines.contains("config get keyserver.style"), "no echo on a pipe")

        // End of input ends the console, not the agent (ConsoleSession: "ends the session, not the
        // agent"; RunCommand documents nothing else). The end is already pending when ctl connects,
        // so the loop has seen it by the time ctl is answered.
        try input.fileHandleForWriting.close()
        let status = try Enbeacon.run(["ctl", "--data", dir, "status"])
        #expect(status.status == 0 && status.stdout.contains("broadcasting "), "stderr: \(status.stderr)")
        #expect(agent.status == nil, "the agent keeps running after its stdin ends\n\(agent.stderr)")
        kill(agent.processIdentifier, SIGTERM)
        #expect(agent.waitForExit(timeout: 20) == 0)
        #expect(!FileManager.default.fileExists(atPath: dir + "/console_history"), "a script's lines are not kept as history")
    }

    // MARK: - Helpers

    static func temporaryDataDirectory() throws -> String {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("enbeacon-terminal-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// A pseudo-terminal pair. posix_openpt and friends are not in Swift's Glibc module, so this does
    /// what they do on Linux: open /dev/ptmx, unlock the slave, open it through the master
    /// (TIOCGPTPEER, Linux 4.13). Generic Linux ioctl encodings (x86, ARM, RISC-V).
    final class PseudoTerminal {
        let master: Int32
        let slave: Int32

        init() throws {
            master = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC)
            guard master >= 0 else { throw Failure(description: "cannot open /dev/ptmx: errno \(errno)") }
            var unlocked: Int32 = 0
            guard ioctl(master, UInt(0x4004_5431), &unlocked) == 0 else {   // TIOCSPTLCK
                close(master)
                throw Failure(description: "cannot unlock the pty slave: errno \(errno)")
            }
            slave = ioctl(master, UInt(0x5441), O_RDWR | O_NOCTTY | O_CLOEXEC)   // TIOCGPTPEER
            guard slave >= 0 else {
                close(master)
                throw Failure(description: "cannot open the pty slave: errno \(errno)")
            }
            _ = fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK)
        }

        deinit {
            close(master)
            close(slave)
        }

        func slavePath() throws -> String {
            var number: UInt32 = 0
            guard ioctl(master, UInt(0x8004_5430), &number) == 0 else {   // TIOCGPTN
                throw Failure(description: "TIOCGPTN failed: errno \(errno)")
            }
            return "/dev/pts/\(number)"
        }

        /// The terminal's local flags (ICANON, ECHO…) as the agent left them.
        var localFlags: tcflag_t {
            var settings = termios()
            tcgetattr(slave, &settings)
            return settings.c_lflag
        }
    }

    /// The agent binary with the given stdin and stdout; its log (stderr) collected unless `stderr` is given.
    static func startAgent(_ arguments: [String], stdin: FileHandle, stdout: FileHandle,
                           stderr: FileHandle? = nil) throws -> ChildProcess {
        try ChildProcess(executable: Enbeacon.binary.path, arguments: arguments, name: "agent",
                         input: .handle(stdin), output: stdout, errors: stderr)
    }

    /// What the console descriptor (a pty master or a stdout pipe) shows, read only while waiting.
    final class Console {
        let fd: Int32
        let agent: ChildProcess
        private(set) var bytes: [UInt8] = []
        private(set) var screen = Screen()
        private var ended = false

        init(fd: Int32, agent: ChildProcess) {
            self.fd = fd
            self.agent = agent
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        }

        var text: String { String(decoding: bytes, as: UTF8.self) }

        var transcript: String {
            let rows = screen.rows.suffix(40).enumerated().map { "|\($0.element)|" }.joined(separator: "\n")
            return """
                --- screen (last rows):
                \(rows)
                --- raw: \(String(reflecting: String(decoding: bytes.suffix(3000), as: UTF8.self)))
                --- agent log:
                \(agent.stderr.suffix(3000))
                """
        }

        /// Reads until `condition` holds; throws with the transcript after 20 s, or once the agent
        /// has exited and nothing more arrives.
        func wait(for what: String, timeout: TimeInterval = 20, until condition: (Console) -> Bool) throws {
            let deadline = Date().addingTimeInterval(timeout)
            while !condition(self) {
                let remaining = deadline.timeIntervalSinceNow
                if remaining <= 0 {
                    throw Failure(description: "timed out after \(Int(timeout)) s waiting for \(what)\n\(transcript)")
                }
                var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                let ready = ended ? 0 : poll(&entry, 1, Int32(min(remaining, 0.1) * 1000) + 1)
                if ready > 0 {
                    var buffer = [UInt8](repeating: 0, count: 65536)
                    let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                    if n > 0 {
                        bytes += buffer[0..<n]
                        screen.feed(buffer[0..<n])
                    } else if n == 0 || (errno != EAGAIN && errno != EINTR) {
                        ended = true   // end of the pipe, or EIO once no one holds the pty slave
                    }
                } else if ready == 0, agent.status != nil || ended {
                    // Nothing more arrived within the slice and nothing more can.
                    if condition(self) { return }
                    throw Failure(description: "the agent exited (status \(agent.status.map(String.init) ?? "?")) "
                                  + "while waiting for \(what)\n\(transcript)")
                }
            }
        }

        /// Waits for a prompt on a row after `row`, with the cursor right after it.
        func waitForPrompt(after row: Int) throws {
            try wait(for: "a prompt after row \(row)") {
                $0.screen.row > row && $0.screen.currentRow == ConsoleTerminalAgentTests.prompt
                    && $0.screen.column == ConsoleTerminalAgentTests.prompt.count
            }
        }

        func send(_ keys: String) throws {
            let data = Array(keys.utf8)
            var offset = 0
            while offset < data.count {
                let n = data[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
                if n < 0 {
                    guard errno == EAGAIN || errno == EINTR else { throw Failure(description: "write: errno \(errno)") }
                    var entry = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                    _ = poll(&entry, 1, 100)
                    continue
                }
                offset += n
            }
        }

        /// Types `keys`; with `expect`, waits until the row shows the prompt and that line, the cursor
        /// `cursor` characters into it.
        func type(_ keys: String, expect line: String? = nil, cursor: Int = 0) throws {
            try send(keys)
            guard let line else { return }
            let shown = ConsoleTerminalAgentTests.prompt + line
            let column = ConsoleTerminalAgentTests.prompt.count + cursor
            try wait(for: "the line to read \(String(reflecting: shown)) with the cursor at column \(column)") {
                $0.screen.currentRow == shown && $0.screen.column == column
            }
        }

        struct Answer {
            /// The row as it was when the line was submitted.
            var echoed: String
            /// The rows between it and the next prompt.
            var rows: [String]
        }

        /// Presses Enter (or `key`) and waits for the next prompt; returns what was printed in between.
        func enter(_ key: String = "\r", waitForPrompt: Bool = true) throws -> Answer {
            let row = screen.row
            try send(key)
            guard waitForPrompt else { return Answer(echoed: screen.currentRow, rows: []) }
            try self.waitForPrompt(after: row)
            return Answer(echoed: screen.rows[row], rows: Array(screen.rows[(row + 1)..<screen.row]))
        }
    }

    /// Just enough of a terminal to know what a person sees: rows of text, a cursor, carriage return,
    /// line feed, backspace, and the CSI sequences the line editor writes (erase to end of line,
    /// cursor left and right, home and clear). UTF-8 continuation bytes join the character before.
    struct Screen {
        private var cells: [[[UInt8]]] = [[]]
        private(set) var row = 0
        private(set) var column = 0
        private var state = State.ground
        private enum State { case ground, escape, sequence([UInt8]) }

        var rows: [String] { cells.map(Self.string) }
        var currentRow: String { Self.string(cells[row]) }

        private static func string(_ row: [[UInt8]]) -> String {
            String(decoding: row.flatMap { $0 }, as: UTF8.self)
        }

        mutating func feed(_ bytes: some Sequence<UInt8>) {
            for byte in bytes { feed(byte) }
        }

        private mutating func feed(_ byte: UInt8) {
            switch state {
            case .escape:
                state = byte == UInt8(ascii: "[") ? .sequence([]) : .ground
            case .sequence(let parameters):
                guard (0x40...0x7E).contains(byte) else {
                    state = .sequence(parameters + [byte])
                    return
                }
                state = .ground
                let count = Int(String(decoding: parameters, as: UTF8.self)) ?? 1
                switch byte {
                case UInt8(ascii: "K"): if column < cells[row].count { cells[row].removeSubrange(column...) }
                case UInt8(ascii: "D"): column = max(0, column - count)
                case UInt8(ascii: "C"): column += count
                case UInt8(ascii: "H"): (row, column) = (0, 0)
                case UInt8(ascii: "J"): if parameters == Array("2".utf8) { cells = [[]]; (row, column) = (0, 0) }
                default: break
                }
            case .ground:
                switch byte {
                case 0x1B: state = .escape
                case 0x0D: column = 0
                case 0x0A:
                    row += 1
                    if row == cells.count { cells.append([]) }
                case 0x08: column = max(0, column - 1)
                case 0x00...0x1F, 0x7F: break
                case 0x80...0xBF where column > 0 && column <= cells[row].count:
                    cells[row][column - 1].append(byte)
                default:
                    while cells[row].count < column { cells[row].append([0x20]) }
                    if column < cells[row].count { cells[row][column] = [byte] } else { cells[row].append([byte]) }
                    column += 1
                }
            }
        }
    }
}
