import Agent
import Console
import Network
import SystemIO

/// `enbeacon ctl`: one console command on the running agent, through its unix socket.
enum CtlCommand {
    static let help = """
        usage: enbeacon ctl [--data DIR] [--json] [--timeout SECONDS] [--connect-timeout SECONDS] COMMAND [ARGS]

        Runs one console command on the agent that uses DIR, through DIR/console.sock, and prints the
        answer. `live` keeps printing until Ctrl-C. Exit status 0, or 1 when the agent answers with an
        error (the reason on stderr), no agent is running on DIR, or a timeout expires (which one is said).
          --data DIR                 the agent's data directory; default $STATE_DIRECTORY, else
                                     ~/.local/state/enbeacon, else /var/lib/enbeacon (the systemd
                                     unit's) when an agent listens there
          --json                     the answer as JSON (the same as --json after the command)
          --timeout SECONDS          how long to wait for the answer (default \(defaultAnswerSeconds), sync now
                                     \(defaultSyncAnswerSeconds), keys share CODE \(shareAnswerSeconds)); a live stream
                                     waits for ever once it runs
          --connect-timeout SECONDS  how long to wait for the agent to take the connection (default \(defaultConnectSeconds))
        Options after COMMAND belong to the command. Commands that reveal keys, delete data or change what
        the badge runs or trusts need --yes here (the console on a terminal asks instead). enbeacon ctl
        help lists the agent's commands.
        """

    static let defaultConnectSeconds = 5
    static let defaultAnswerSeconds = 30
    /// `sync now` answers when the download and the matching are done.
    static let defaultSyncAnswerSeconds = 1800
    /// `keys share CODE` answers once the verification server has: the agent's own bound on that request,
    /// and a margin for loading libcurl and writing DATA/share.
    static let shareAnswerSeconds = Int(HealthAuthorityRequest.timeout.components.seconds) + 30

    /// How long to wait for the agent's answer to `words`: as long as the agent may take to do the work.
    static func answerSeconds(for words: [String]) -> Int {
        if words.prefix(2) == ["sync", "now"] { return defaultSyncAnswerSeconds }
        if isShare(words) { return shareAnswerSeconds }
        return defaultAnswerSeconds
    }

    /// `keys share CODE`, not its `status` or `cancel`.
    static func isShare(_ words: [String]) -> Bool {
        words.count >= 3 && words.prefix(2) == ["keys", "share"] && !["status", "cancel"].contains(words[2])
    }

    /// For a timeout: what may still be under way in the agent, and where its outcome shows.
    static func stillUnderWay(_ words: [String]) -> String {
        if words.prefix(2) == ["sync", "now"] {
            return "; the sync goes on in the agent: enbeacon ctl sync shows its progress and outcome"
        }
        if isShare(words) {
            return "; the key share may still be under way: enbeacon ctl keys share status shows its outcome"
        }
        return ""
    }

    struct Request: Hashable {
        var dataDirectory: String
        var json: Bool
        var words: [String]
        var connectSeconds = defaultConnectSeconds
        var answerSeconds = defaultAnswerSeconds

        /// The answer is JSON, whether `--json` came before the command (ctl's) or after it (the command's).
        var answersJSON: Bool { json || words.contains("--json") }

        /// The line sent to the agent: the words quoted so that it splits them back unchanged.
        var line: String {
            CommandLineWords.join(json && !words.contains("--json") ? words + ["--json"] : words)
        }
    }

    /// The request, or nil when ctl's own help was asked for. Only options before the command are ctl's.
    static func parse(_ arguments: [String]) throws(UsageError) -> Request? {
        var dataDirectory: String?
        var json = false
        var connectSeconds: Int?
        var answerSeconds: Int?
        var index = 0
        func value(_ name: String, _ argument: String) throws(UsageError) -> String {
            if argument.hasPrefix(name + "=") { return String(argument.dropFirst(name.count + 1)) }
            guard index < arguments.count, !arguments[index].hasPrefix("--") else { throw UsageError("ctl", "\(name) needs a value") }
            index += 1
            return arguments[index - 1]
        }
        func seconds(_ name: String, _ argument: String) throws(UsageError) -> Int {
            let text = try value(name, argument)
            guard let seconds = Int(text), (1...86_400).contains(seconds) else {
                throw UsageError("ctl", "\(name): expected whole seconds from 1 to 86400, got '\(text)'")
            }
            return seconds
        }
        while index < arguments.count, arguments[index].hasPrefix("-") {
            let argument = arguments[index]
            index += 1
            let name = argument.split(separator: "=", maxSplits: 1).first.map(String.init) ?? argument
            switch name {
            case "--help", "-h":
                return nil
            case "--json":
                json = true
            case "--data":
                dataDirectory = try value(name, argument)
            case "--timeout":
                answerSeconds = try seconds(name, argument)
            case "--connect-timeout":
                connectSeconds = try seconds(name, argument)
            default:
                throw UsageError("ctl", "unknown option \(argument) (options for the command go after it)")
            }
        }
        let words = Array(arguments[index...])
        guard !words.isEmpty else { throw UsageError("ctl", "missing COMMAND (enbeacon ctl help lists them)") }
        if words.contains(where: { $0.unicodeScalars.contains { $0 == "\n" || $0 == "\r" || $0 == "\0" } }) {
            throw UsageError("ctl", "an argument contains a line break")
        }
        let directory = dataDirectory ?? DefaultDataDirectory.forClient
        var request = Request(dataDirectory: directory, json: json, words: words)
        request.connectSeconds = connectSeconds ?? defaultConnectSeconds
        request.answerSeconds = answerSeconds ?? Self.answerSeconds(for: words)
        return request
    }

    /// Sends the command, copies the answer out as it arrives, and returns the exit status.
    ///
    /// Nothing waits for ever: the agent must take the connection within the connect timeout (a frozen
    /// agent's full backlog would otherwise hold ctl in connect), and each part of the answer must arrive
    /// within the answer timeout, except the lines of a `live` stream once it has started. When the agent
    /// says it closed the connection before running the command (its connections were all taken), the
    /// command is sent again, for as long as the connect timeout.
    static func run(_ request: Request, out: FileOutput, err: FileOutput) -> Int32 {
        let start = BenchCommand.monotonicSeconds()
        var delayMilliseconds: Int64 = 20
        while true {
            switch once(request, out: out, err: err) {
            case .finished(let status):
                return status
            case .notRun(let reason):
                let elapsed = Int64((BenchCommand.monotonicSeconds() - start) * 1000)
                guard elapsed + delayMilliseconds < Int64(request.connectSeconds) * 1000 else {
                    err.write(request.answersJSON ? reason + "\n" : "enbeacon ctl: \(reason)\n")
                    return 1
                }
                Posix.sleep(milliseconds: Int(delayMilliseconds))
                delayMilliseconds = min(delayMilliseconds * 2, 250)
            }
        }
    }

    private enum Attempt {
        case finished(Int32)
        /// The agent closed the connection without running the command; why, in its words.
        case notRun(String)
    }

    private static func once(_ request: Request, out: FileOutput, err: FileOutput) -> Attempt {
        let path = ConsoleSocketServer.path(dataDirectory: request.dataDirectory)
        let fd: Int32
        do {
            fd = try UnixSocket.connect(to: path, timeout: .seconds(request.connectSeconds))
        } catch {
            let reason = error.code == Errno.wouldBlock
                ? "the agent on \(request.dataDirectory) did not take the connection within \(request.connectSeconds) s "
                    + "(connect timeout; it may be stuck, or its console overloaded)"
                : connectionFailure(error.code, directory: request.dataDirectory, path: path)
            err.write("enbeacon ctl: \(reason)\n")
            return .finished(1)
        }
        defer { DescriptorIO.close(fd) }
        UnixSocket.setTimeout(.receiving, .seconds(request.answerSeconds), on: fd)
        // If the agent hangs up early (it refuses a connection when busy) its answer is still read below.
        Array((request.line + "\n").utf8).withUnsafeBytes { _ = try? Posix.sendAll($0, to: fd) }

        var status: Bool?
        var header: [UInt8] = []
        var errorBody: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        out.flush()
        receiving: while true {
            switch buffer.withUnsafeMutableBytes({ receive(fd, into: $0) }) {
            case .timedOut:
                let waited = status == nil ? "did not answer" : "stopped in the middle of its answer"
                err.write("enbeacon ctl: the agent \(waited) within \(request.answerSeconds) s "
                          + "(answer timeout; --timeout SECONDS waits longer)\(stillUnderWay(request.words))\n")
                return .finished(1)
            case .ended:
                // ECONNRESET after the answer: the agent closed with bytes of ours unread; the answer is complete.
                break receiving
            case .received(let count):
                var chunk = buffer[0..<count]
                if status == nil {
                    guard let newline = chunk.firstIndex(of: 0x0A) else {
                        header += chunk
                        if header.count > 64 { break receiving }
                        continue
                    }
                    header += chunk[..<newline]
                    chunk = chunk[(newline + 1)...]
                    switch String(decoding: header, as: UTF8.self) {
                    case ConsoleFraming.ok: status = true
                    case ConsoleFraming.error: status = false
                    default: break
                    }
                    if status == nil { break receiving }
                    // A running stream may be quiet for as long as nothing is heard.
                    if status == true, request.words.first == "live" { UnixSocket.setTimeout(.receiving, .zero, on: fd) }
                }
                if status == true {
                    chunk.withUnsafeBytes { _ = try? Posix.writeAll($0, to: 1) }
                } else if errorBody.count < 64 * 1024 {
                    errorBody += chunk
                }
            }
        }
        switch status {
        case true?:
            return .finished(0)
        case false?:
            while errorBody.last == 0x0A { errorBody.removeLast() }
            let reason = String(decoding: errorBody, as: UTF8.self)
            if ConsoleFraming.commandDidNotRun(reason) { return .notRun(reason) }
            err.write(request.answersJSON ? reason + "\n" : "enbeacon ctl: \(reason)\n")
            return .finished(1)
        case nil:
            err.write("enbeacon ctl: \(path) did not answer as the agent's console does\n")
            return .finished(1)
        }
    }

    private enum Received {
        case received(Int)
        case ended
        case timedOut
    }

    /// One blocking recv, bounded by the socket's SO_RCVTIMEO.
    private static func receive(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) -> Received {
        do {
            let count = try Posix.receive(fd, into: buffer)
            return count > 0 ? .received(count) : .ended
        } catch {
            return error.code == Errno.wouldBlock ? .timedOut : .ended
        }
    }

    static func connectionFailure(_ code: Int32, directory: String, path: String) -> String {
        switch code {
        case Errno.noEntry, Errno.connectionRefused, Errno.notDirectory:
            "no agent is running on \(directory) (cannot connect to \(path))"
        case Errno.accessDenied, Errno.notPermitted:
            "cannot connect to \(path): permission denied (run as the agent's user)"
        case Errno.nameTooLong:
            "cannot connect to \(path): the path is too long for a unix socket"
        default:
            "cannot connect to \(path): \(SystemError(call: "connect", code: code).reason)"
        }
    }
}
