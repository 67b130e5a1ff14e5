import AgentBase
import Simulation
import Agent
import Console
import Metrics
import Network
import ENCore
import Store
import EventLoop
import HCI
import SystemIO

/// `enbeacon run`: the agent on the real event loop, on the board's transport or the one given.
enum RunCommand {
    static let help = """
        usage: enbeacon [run] [--board NAME|PATH] [--transport SPEC] [--data DIR] [--config FILE]
                            [--set KEY=VALUE]... [--console WHERE] [--btsnoop FILE] [--seconds N] [--log LEVEL]

        Runs the agent: advertises rotating Rolling Proximity Identifiers and scans for others.
          --board NAME|PATH  a board profile: a file of key = value lines, or a name (built in:
                             virtual; otherwise Board/NAME.conf); default virtual
          --transport SPEC   user:hciN | uart:/dev/DEVICE[,BAUD][,rtscts] | tcp:HOST:PORT | virtual
                             (overrides the board's)
          --data DIR         data directory (0700; keys 0600); default $STATE_DIRECTORY,
                             else ~/.local/state/enbeacon
          --config FILE      key = value configuration (key server, sync, risk, notify.command);
                             the console's config set writes it back
          --set KEY=VALUE    override one configuration key for this run (repeatable)
          --btsnoop FILE     log all HCI traffic in btsnoop format (btmon -r FILE, Wireshark)
          --console WHERE    stdin, none, or a serial DEVICE[,BAUD] for the console (default: the
                             board's console, else stdin when it is a terminal or a pipe);
                             enbeacon ctl reaches DATA/console.sock
          --seconds N        stop cleanly after N seconds
          --log LEVEL        error, warn, info (default) or debug; one line each on stderr, and
                             of one kind of message at most 5 a minute (debug lines excepted)
        SIGTERM and SIGINT stop cleanly; SIGHUP reads the --config file again.

        Configuration keys (default in brackets):
        \(ConfigurationKey.all.map { "  \($0.name) [\($0.defaultValue)]: \($0.help)" }.joined(separator: "\n"))
        """

    struct Request {
        var board: BoardProfile
        var transport: TransportSpec
        var btsnoop: String?
        var dataDirectory: String
        var seconds: Int?
        var logLevel: Logger.Level
        var console: ConsoleSpec = .automatic
        var configuration: Configuration
        var configurationFile: ConfigurationFile?
    }

    static func parse(_ arguments: inout Arguments) throws(UsageError) -> Request {
        let c = arguments.command
        var board = BoardProfile.virtual
        if let name = try arguments.option("--board") {
            board = try loadBoard(name, command: c)
        }
        var transport = board.transport
        if let text = try arguments.option("--transport") {
            do { transport = try TransportSpec(parsing: text) } catch { throw UsageError(c, "--transport \(error)") }
        }
        let btsnoop = try arguments.option("--btsnoop")
        let dataDirectory = try arguments.option("--data") ?? DefaultDataDirectory.path
        var seconds: Int?
        if let text = try arguments.option("--seconds") {
            guard let n = Int(text), n > 0 else { throw UsageError(c, "--seconds: expected a positive number, got '\(text)'") }
            seconds = n
        }
        var level = Logger.Level.info
        if let text = try arguments.option("--log") {
            guard let l = Logger.Level(name: text) else {
                throw UsageError(c, "--log: expected error, warn, info or debug, got '\(text)'")
            }
            level = l
        }
        let configurationFile = try arguments.option("--config").map(ConfigurationFile.init(path:))
        let assignments = try arguments.options("--set")
        var configuration = Configuration()
        do throws(ConfigurationError) {
            if let configurationFile { configuration = try configurationFile.load() }
            for assignment in assignments { try configuration.override(assignment) }
        } catch {
            throw UsageError(c, error.location == "--set" ? "\(error)" : "--config \(error)")
        }
        var console = board.console ?? .automatic
        if let text = try arguments.option("--console") {
            do { console = try ConsoleSpec(parsing: text) } catch { throw UsageError(c, "--console: \(error)") }
        }
        try arguments.finish()
        var request = Request(board: board, transport: transport, btsnoop: btsnoop, dataDirectory: dataDirectory,
                              seconds: seconds, logLevel: level, configuration: configuration,
                              configurationFile: configurationFile)
        request.console = console
        return request
    }

    /// The agent's version, with the badge image's boot facts where the image wrote them (a badge not on the
    /// image has none: not an error). A file there that cannot be read is logged and left out.
    static func software(log: Logger) -> SoftwareIdentity {
        let path = SoftwareIdentity.bootFactsPath
        do { return SoftwareIdentity(version: Enbeacon.version, bootFacts: try TextFile.contents(of: path, limit: 4096)) } catch {
            if !error.isMissing { log.warn("\(path): \(error.reason)") }
            return SoftwareIdentity(version: Enbeacon.version)
        }
    }

    static func loadBoard(_ name: String, command c: String) throws(UsageError) -> BoardProfile {
        if name == "virtual" { return .virtual }
        let path = name.contains("/") || name.hasSuffix(".conf") ? name : "Board/\(name).conf"
        let text: String
        do { text = try TextFile.contents(of: path, limit: 64 << 10) } catch {
            throw UsageError(c, "--board: \(error) (built-in boards: virtual)")
        }
        do {
            return try BoardProfile(parsing: text, defaultName: name)
        } catch {
            throw UsageError(c, "--board: \(path) \(error)")
        }
    }

    /// SIGHUP (`systemctl reload enbeacon`): the config file again; a broken one changes nothing.
    static func reloadConfiguration(_ agent: Agent, file: ConfigurationFile?, log: Logger) {
        guard let file else {
            log.info("SIGHUP: no --config file to reload")
            return
        }
        do {
            let changed = try agent.reloadConfiguration()
            log.info("SIGHUP: reloaded \(file.path)" + (changed.isEmpty ? ", no value changed" : ": \(changed.joined(separator: ", ")) changed"))
        } catch {
            log.error("SIGHUP: \(error); keeping the configuration in force")
        }
    }

    /// Whether two descriptors are the same terminal device.
    static func sameTerminal(_ a: Int32, _ b: Int32) -> Bool {
        guard Posix.isTerminal(a), Posix.isTerminal(b),
              let sa = try? Posix.status(of: a), let sb = try? Posix.status(of: b) else { return false }
        return sa.device == sb.device
    }

    /// Runs until stopped; returns the exit status.
    static func run(_ request: Request, err: FileOutput) -> Int32 {
        // One malloc arena: the agent is one thread, and the threads libcurl starts to resolve names would
        // otherwise each get an arena of their own whose freed memory stays resident.
        Posix.useOneMallocArena()
        let loop = PollLoop()
        let logOutput = LogOutput(err: err)
        // A storm of one kind of message (a controller faulting in a loop) costs a few lines a minute.
        // Under systemd the journal stamps each line itself and reads its priority from a prefix.
        let journal = JournalStream.isStandardError
        let limiter = LogRateLimiter(loop: loop) { level, message in
            logOutput.write(journal ? "\(JournalStream.prefix(level))\(level) \(message)"
                            : "\(UTCDateTime(unixSeconds: loop.unixNanoseconds / 1_000_000_000)) \(level) \(message)")
        }
        let log = Logger(level: request.logLevel, sink: limiter.write)
        var snoop: BtsnoopFile?
        if let path = request.btsnoop {
            do { snoop = try BtsnoopFile(path: path) } catch {
                log.error("--btsnoop \(path): \(error)")
                return 1
            }
        }
        let link = ControllerLink(request.transport, board: request.board, loop: loop, snoop: snoop, log: log)
        let agent: Agent
        let http: HTTPClient
        var settings = Agent.Settings()
        settings.clockPolicy = request.board.clock
        settings.advertiser.calibrationConfidence = request.board.calibrationConfidence
        settings.advertiser.txPower = request.board.txPower
        settings.configuration = request.configuration
        do throws(ConfigurationError) { try settings.configuration.setBoardValues(of: request.board) } catch {
            log.error("board \(request.board.name): \(error)")
            return 1
        }
        settings.configurationFile = request.configurationFile
        settings.software = software(log: log)
        do throws(AgentError) {
            agent = try Agent(loop: loop, settings: settings, log: log, dataDirectory: request.dataDirectory,
                              makeTransport: link.make)
        } catch {
            log.error("\(error)")
            return 1
        }
        do throws(HTTPClient.Failure) { http = try HTTPClient(loop: loop) } catch {
            log.error("\(error)")
            return 1
        }
        // One libcurl client for key downloads and key shares.
        agent.attach(network: http)
        // The LED, buzzer and button: a line that cannot be had is logged and left out; the agent runs on.
        if !request.board.indicators.isEmpty {
            agent.attach(indicators: request.board.indicators.open(loop: loop, log: log).lines)
        }
        do {
            let signals = [SignalDescriptor.terminate, SignalDescriptor.interrupt, SignalDescriptor.hangup]
                + (LoopStallHook.isEnabled ? [SignalDescriptor.user1] : [])
            try loop.handleSignals(signals) { signal in
                if signal == SignalDescriptor.user1 {
                    LoopStallHook.stall(log: log)
                } else if signal == SignalDescriptor.hangup {
                    reloadConfiguration(agent, file: request.configurationFile, log: log)
                } else {
                    log.info("stopping on signal \(signal)")
                    loop.stop()
                }
            }
        } catch {
            log.error("cannot handle signals: \(error)")
            return 1
        }
        log.info("enbeacon \(Enbeacon.version) starting on board \(request.board.name), transport \(request.transport)")
        if settings.software.image != nil { log.info("software: \(settings.software)") }
        if let slot = settings.software.rolledBackFrom {
            log.warn("the update on slot \(slot) did not prove itself; the bootloader went back to this slot")
        }
        link.virtualBoard?.start()
        agent.start()
        // Started by systemd (Type=notify): READY=1, STATUS= lines and watchdog pings from this loop.
        let notifier = ServiceNotifier.fromEnvironment(loop: loop) { agent.serviceStatus }
        notifier?.start()
        if let notifier {
            log.info("systemd: notifying" + (notifier.pingInterval.map { ", watchdog ping every \($0.humanReadable)" } ?? ""))
        }
        if let seconds = request.seconds {
            loop.schedule(after: .seconds(seconds)) {
                log.info("stopping after \(seconds) s")
                loop.stop()
            }
        }
        // The console: the same commands on stdin (or a serial line) and on DATA/console.sock for `enbeacon ctl`.
        let control = AgentControl(agent: agent, stop: { loop.stop() })
        let table = AgentConsole.commandTable(for: control)
        // Metrics for node_exporter's textfile collector and for a Prometheus scraping the badge, while configured.
        let metrics = MetricsService(loop: loop, control: control, exposition: BadgeMetricsExposition(
            build: .init(version: Enbeacon.version, board: request.board.name, transport: "\(request.transport)")), log: log)
        metrics.configure(agent.configuration)
        agent.onConfigurationApplied = { metrics.configure($0) }
        let server = ConsoleSocketServer(loop: loop, table: table,
                                         path: ConsoleSocketServer.path(dataDirectory: request.dataDirectory), log: log)
        do { try server.start() } catch { log.error("console socket: \(error)") }
        let session = openConsole(request, loop: loop, table: table, log: log)
        // While the console is a terminal that stderr shares, log lines go above the line being typed
        // instead of through it.
        if let session, session.channel == .terminal, request.console == .standardInput, sameTerminal(0, 2) {
            logOutput.terminal = session
        }
        loop.run()
        // A clean stop: advertising and scanning off at the controller before the adapter is released,
        // or it would go on broadcasting (closing the user channel does not reset it). The loop runs on
        // until the controller confirms, for at most 2 s.
        notifier?.stopping()
        let quiescing = loop.now
        agent.quiesceRadio(within: .seconds(2)) { confirmed in
            if confirmed {
                log.info("advertising and scanning off, confirmed in \((loop.now - quiescing).nanosecondsValue / 1_000_000) ms")
            } else if control.controller().phase == .ready {
                log.warn("the controller did not confirm advertising and scanning off within 2 s")
            }
            loop.stop()
        }
        loop.run()
        logOutput.terminal = nil
        session?.close()
        metrics.stop()
        server.stop()
        let counted = control.metrics()
        agent.stop()
        snoop?.close()
        log.info("stopped: \(counted.rotations) rotations, \(counted.scans) scans, "
                 + "\(counted.gaenReports) GAEN reports, \(control.otherReportsHeard) other reports")
        return 0
    }

    /// The REPL `request.console` asks for, started; nil for none or when it cannot be opened (the agent
    /// runs on, reachable through `enbeacon ctl`).
    static func openConsole(_ request: Request, loop: PollLoop, table: CommandTable, log: Logger) -> ConsoleSession? {
        let session: ConsoleSession?
        do {
            session = try ConsoleSession.open(request.console, loop: loop, table: table,
                                              history: ConsoleHistoryFile(dataDirectory: request.dataDirectory), log: log)
        } catch {
            log.error("console \(request.console): \(error)")
            return nil
        }
        guard let session else { return nil }
        // Ctrl-D on an empty terminal line is the person at the console saying quit; the end of a pipe or
        // a serial line that fails is not: the agent goes on, and `enbeacon ctl` still reaches it.
        let channel = session.channel
        session.onEnd = { ending in
            switch ending {
            case .endOfInput where channel == .terminal:
                log.info("console: Ctrl-D, stopping")
                loop.stop()
            case .endOfInput:
                log.info("console: end of input; the agent goes on (enbeacon ctl reaches it)")
            case .failed(let reason):
                log.warn("console ended: \(reason); the agent goes on (enbeacon ctl reaches it)")
            }
        }
        session.start()
        return session
    }
}

/// Where the agent's log lines go: stderr, or above the line being typed while the console is a terminal
/// that stderr shares.
final class LogOutput {
    private let err: FileOutput
    var terminal: ConsoleSession?

    init(err: FileOutput) { self.err = err }

    func write(_ line: String) {
        if let terminal, terminal.isShowing {
            terminal.show(line)
        } else {
            err.write(line + "\n")
        }
    }
}

/// The agent's link to its controller, made anew at each (re)connection: the virtual board's in-process
/// controller or a stream (user channel, UART, TCP), logged to btsnoop when asked.
struct ControllerLink {
    /// The built-in board, when the transport is `virtual`.
    let virtualBoard: VirtualBoard?
    let make: () -> any HCITransport

    init(_ spec: TransportSpec, board: BoardProfile, loop: PollLoop, snoop: BtsnoopFile?, log: Logger) {
        let base: () -> any HCITransport
        if spec == .virtual {
            let virtualBoard = VirtualBoard(loop: loop, phones: board.simulatedPhones, log: log)
            self.virtualBoard = virtualBoard
            base = { virtualBoard.makeAgentTransport() }
        } else {
            virtualBoard = nil
            base = { StreamTransport(spec, loop: loop, log: log) }
        }
        guard let snoop else {
            make = base
            return
        }
        make = { SnoopingTransport(base(), file: snoop, loop: loop, log: log) }
    }
}
