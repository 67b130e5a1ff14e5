import Agent
#if canImport(Glibc)
import Glibc
#endif

/// `enbeacon ctl`: one console command on the running agent, through its unix socket.
enum CtlCommand {
    static let help = """
        usage: enbeacon ctl [--data DIR] [--json] COMMAND [ARGS]

        Runs one console command on the agent that uses DIR, through DIR/console.sock, and prints the
        answer. `live` keeps printing until Ctrl-C. Exit status 0, or 1 when the agent answers with an
        error (the reason on stderr) or no agent is running on DIR.
          --data DIR   the agent's data directory; default $STATE_DIRECTORY, else ~/.local/state/enbeacon,
                       else /var/lib/enbeacon (the systemd unit's) when an agent listens there
          --json       the answer as JSON (the same as --json after the command)
        Options after COMMAND belong to the command. Commands that reveal keys or delete data need --yes
        here (the console on a terminal asks instead). enbeacon ctl help lists the agent's commands.
        """

    struct Request: Hashable {
        var dataDirectory: String
        var json: Bool
        var words: [String]

        /// The line sent to the agent: the words quoted so that it splits them back unchanged.
        var line: String {
            CommandLineWords.join(json && !words.contains("--json") ? words + ["--json"] : words)
        }
    }

    /// The request, or nil when ctl's own help was asked for. Only options before the command are ctl's.
    static func parse(_ arguments: [String]) throws(UsageError) -> Request? {
        var dataDirectory: String?
        var json = false
        var index = 0
        while index < arguments.count, arguments[index].hasPrefix("-") {
            let argument = arguments[index]
            index += 1
            switch argument {
            case "--help", "-h":
                return nil
            case "--json":
                json = true
            case "--data":
                guard index < arguments.count, !arguments[index].hasPrefix("--") else { throw UsageError("ctl", "--data needs a value") }
                dataDirectory = arguments[index]
                index += 1
            case _ where argument.hasPrefix("--data="):
                dataDirectory = String(argument.dropFirst("--data=".count))
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
        return Request(dataDirectory: directory, json: json, words: words)
    }

    /// Sends the command, copies the answer out as it arrives, and returns the exit status.
    static func run(_ request: Request, out: FileOutput, err: FileOutput) -> Int32 {
        let path = ConsoleSocketServer.path(dataDirectory: request.dataDirectory)
        let fd: Int32
        do {
            fd = try UnixSocket.connect(to: path)
        } catch {
            err.write("enbeacon ctl: \(connectionFailure(error.code, directory: request.dataDirectory, path: path))\n")
            return 1
        }
        defer { close(fd) }
        // If the agent hangs up early (it refuses a connection when busy) its answer is still read below.
        _ = sendAll(Array((request.line + "\n").utf8), to: fd)

        var status: Bool?
        var header: [UInt8] = []
        var errorBody: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        out.flush()
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            // ECONNRESET after the answer: the agent closed with bytes of ours unread; the answer is complete.
            guard count > 0 else { break }
            var chunk = buffer[0..<count]
            if status == nil {
                guard let newline = chunk.firstIndex(of: 0x0A) else {
                    header += chunk
                    if header.count > 64 { break }
                    continue
                }
                header += chunk[..<newline]
                chunk = chunk[(newline + 1)...]
                switch String(decoding: header, as: UTF8.self) {
                case ConsoleFraming.ok: status = true
                case ConsoleFraming.error: status = false
                default: break
                }
                if status == nil { break }
            }
            if status == true {
                writeAll(chunk, to: 1)
            } else if errorBody.count < 64 * 1024 {
                errorBody += chunk
            }
        }
        switch status {
        case true?:
            return 0
        case false?:
            while errorBody.last == 0x0A { errorBody.removeLast() }
            let reason = String(decoding: errorBody, as: UTF8.self)
            err.write(request.json ? reason + "\n" : "enbeacon ctl: \(reason)\n")
            return 1
        case nil:
            err.write("enbeacon ctl: \(path) did not answer as the agent's console does\n")
            return 1
        }
    }

    static func connectionFailure(_ code: Int32, directory: String, path: String) -> String {
        switch code {
        case ENOENT, ECONNREFUSED, ENOTDIR:
            "no agent is running on \(directory) (cannot connect to \(path))"
        case EACCES, EPERM:
            "cannot connect to \(path): permission denied (run as the agent's user)"
        case ENAMETOOLONG:
            "cannot connect to \(path): the path is too long for a unix socket"
        default:
            "cannot connect to \(path): \(String(cString: strerror(code)))"
        }
    }

    private static func sendAll(_ bytes: [UInt8], to fd: Int32) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let count = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return false }
            offset += count
        }
        return true
    }

    /// Raw bytes, not text: a chunk may end inside a UTF-8 character.
    private static func writeAll(_ bytes: ArraySlice<UInt8>, to fd: Int32) {
        var offset = bytes.startIndex
        while offset < bytes.endIndex {
            let count = bytes[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return }
            offset += count
        }
    }
}
