import Agent
import EventLoop
import SystemIO

/// The REPL on the loop: the agent's stdin and stdout, or a serial line.
///
/// On a terminal (stdin is a tty, or a serial device) it is a `TerminalConsole`: raw input, a
/// `LineEditor` with prompt, echo, editing, history and completion, and consent questions. On a pipe or
/// a file it is a `PipeConsole`, a plain line reader for scripts: no prompt, no echo, one answer per
/// line, in order. Both share a `ConsoleSessionCore`. End of input (EOF on a pipe, Ctrl-D on a
/// terminal) ends the session, not the agent: `onEnd` tells the owner.
///
/// Nothing here blocks the loop: input is read only when ready, output goes through a bounded
/// `DescriptorWriter` (a 115200-baud line or a stopped terminal cannot stall the badge), and `live`
/// lines are dropped before anything else when it fills.
package final class ConsoleSession {
    package struct Settings {
        var prompt = "enbeacon> "
        var editor = LineEditor.Settings()
        /// Output waiting for a slow line beyond this is dropped (and a note printed once it drains).
        var outputLimit = 256 * 1024
        /// `live` lines are dropped once this much output is waiting.
        var liveOutputLimit = 16 * 1024
        /// A half-received escape sequence is abandoned after this long without more input.
        var escapeTimeout: Duration = .milliseconds(100)
        /// History is written this long after the last new entry (and when the session ends), so a burst
        /// of commands costs one write to the SD card.
        var historySaveDelay: Duration = .seconds(5)

        package init() {}
    }

    package enum Ending: Hashable, Sendable {
        /// EOF on a pipe, or Ctrl-D on an empty terminal line.
        case endOfInput
        /// Reading or writing failed (a serial adapter unplugged, a terminal hung up).
        case failed(String)
    }

    package let channel: ConsoleChannel
    /// Called once when the session ends by itself (not after `close()`), once its output is written.
    package var onEnd: (Ending) -> Void {
        get { core.onEnd }
        set { core.onEnd = newValue }
    }
    var isRunning: Bool { core.isRunning }

    private enum Mode {
        case terminal(TerminalConsole)
        case pipe(PipeConsole)
    }

    private let core: ConsoleSessionCore
    private let mode: Mode

    /// A session on descriptors that are already open: a terminal when `input` is a tty, a pipe otherwise.
    ///
    /// - Parameters:
    ///   - ownsDescriptors: close them when the session ends (false for stdin and stdout).
    ///   - history: where a terminal session keeps its history; nil keeps it in memory only.
    package convenience init(loop: any EventLoop, table: CommandTable, input: Int32, output: Int32, ownsDescriptors: Bool = false,
                            history: ConsoleHistoryFile? = nil, settings: Settings = Settings(), log: Logger = .silent) {
        self.init(loop: loop, table: table, input: input, output: output, ownsDescriptors: ownsDescriptors,
                  history: history, serialLine: nil, settings: settings, log: log)
    }

    private init(loop: any EventLoop, table: CommandTable, input: Int32, output: Int32, ownsDescriptors: Bool,
                 history: ConsoleHistoryFile?, serialLine: TerminalMode?, settings: Settings, log: Logger) {
        channel = serialLine != nil || Posix.isTerminal(input) ? .terminal : .pipe
        core = ConsoleSessionCore(channel: channel, loop: loop, table: table, input: input, output: output,
                                  ownsDescriptors: ownsDescriptors, settings: settings)
        if channel == .terminal {
            mode = .terminal(TerminalConsole(core: core, settings: settings, history: history, serialLine: serialLine, log: log))
        } else {
            mode = .pipe(PipeConsole(core: core, maxLineBytes: settings.editor.maxLineBytes))
        }
    }

    /// The session `spec` asks for, not yet started; nil for `.none`.
    package static func open(_ spec: ConsoleSpec, loop: any EventLoop, table: CommandTable, history: ConsoleHistoryFile? = nil,
                            settings: Settings = Settings(), log: Logger = .silent) throws(ConsoleError) -> ConsoleSession? {
        switch spec {
        case .none:
            return nil
        case .standardInput:
            return ConsoleSession(loop: loop, table: table, input: 0, output: 1, history: history, settings: settings, log: log)
        case .serial(let path, let baud):
            let fd: Int32
            do { fd = try Posix.open(path, .readWrite, [.noControllingTerminal, .nonBlocking]) } catch {
                throw ConsoleError("--console \(path): \(error.reason)")
            }
            guard let original = TerminalMode(saving: fd) else {
                DescriptorIO.close(fd)
                throw ConsoleError("--console \(path) is not a serial device")
            }
            do {
                try SerialLine.configureRaw(fd: fd, path: path, baud: baud, flowControl: false)
            } catch {
                DescriptorIO.close(fd)
                throw ConsoleError("--console \(error)")
            }
            return ConsoleSession(loop: loop, table: table, input: fd, output: fd, ownsDescriptors: true,
                                  history: history, serialLine: original, settings: settings, log: log)
        }
    }

    /// Starts reading; on a terminal, switches it to raw mode and shows the prompt.
    package func start() {
        guard !core.isRunning, core.ending == nil else { return }
        switch mode {
        case .terminal(let terminal): terminal.start()
        case .pipe(let pipe): pipe.start()
        }
    }

    /// Ends the session now: stops any stream, puts the terminal back, writes the history, and drops
    /// output that could not be written at once. `onEnd` is not called. Call it on every way out of
    /// the agent (including SIGTERM), or the terminal stays raw.
    package func close() {
        core.close()
    }

    /// Whether `show` reaches the person now (the session runs and is not ending).
    package var isShowing: Bool { core.isRunning && core.ending == nil }

    /// Prints a line for the person at the console (above the line being edited on a terminal).
    package func show(_ text: String) {
        guard isShowing else { return }
        switch mode {
        case .terminal(let terminal): terminal.show(text)
        case .pipe(let pipe): pipe.show(text)
        }
    }
}
