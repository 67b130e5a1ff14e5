import Agent
import AgentBase
import SystemIO

/// `enbeacon config check`: a configuration file checked as the agent would read it, without starting it, so
/// that a file written on a PC (the badge image's `badge.conf`) is refused before it replaces a working one.
enum ConfigCommand {
    static let help = """
        usage: enbeacon config check FILE [--board NAME|PATH]

        Checks FILE as `enbeacon run --config FILE` reads it: every line's syntax, every key's range, each
        key server's public key file and CA file and the risk configuration they name (relative paths
        from the current directory, as the agent resolves them), and, with --board, that the board
        profile's values fit with it. Changes nothing.
        Prints "FILE: valid" and exits 0; otherwise one line on stderr naming the line or key at fault,
        e.g. "badge.conf line 3: sync.interval_hours: expected 1-168, got '0'", and exit status 1.
        Exit status 2 for a bad command line.
        """

    struct Request {
        var file: String
        var board: BoardProfile?
    }

    static func parse(_ arguments: inout Arguments) throws(UsageError) -> Request {
        let c = arguments.command
        let boardName = try arguments.option("--board")
        guard arguments.positional() == "check" else { throw UsageError(c, "expected 'config check FILE'") }
        guard let file = arguments.positional() else { throw UsageError(c, "config check: which file?") }
        var board: BoardProfile?
        if let boardName { board = try RunCommand.loadBoard(boardName, command: c) }
        try arguments.finish()
        return Request(file: file, board: board)
    }

    static func run(_ request: Request, out: FileOutput) throws(CommandFailure) {
        do throws(ConfigurationError) {
            var configuration = try ConfigurationFile(path: request.file).load()
            if let board = request.board { try configuration.setBoardValues(of: board) }
            try Agent.check(configuration)
        } catch {
            // Errors of the file's lines already name it; those of a key's resolved value do not.
            let named = error.location?.hasPrefix(request.file) == true
            throw CommandFailure(named ? "\(error)" : "\(request.file): \(error)")
        }
        out.write("\(request.file): valid\n")
    }
}
