import EventLoop
import SystemIO

/// The console on a unix socket, `DATA/console.sock` (mode 0600), for `enbeacon ctl` and scripts:
/// one command per connection, answered as `ConsoleFraming` describes.
///
/// Several clients are served at once, each on its own non-blocking connection, and none of them can
/// hold up the loop or the others: a client that never sends, never reads or sends too much is cut
/// off by a limit (see `Settings`). At `maxConnections`, a new client takes the place of the oldest
/// one that has not sent its command yet; only when every connection is working (a `live` stream, an
/// answer being written or waited for) is it refused at once. Idleness is judged by what is in the socket,
/// not by what was read, and at the cap one newcomer is weighed per turn of the loop, so every connection
/// has had a turn to send before it can be judged idle: clients that reconnect as fast as they are closed
/// cannot push out a `ctl` whose line is waiting. The agent's own console (stdin or a
/// serial line) is a `ConsoleSession`, not a connection: it never counts against the cap.
///
/// From `start` until `stop` the loop holds the server (its listening watch and backoff timer) and each
/// connection holds it until that connection closes (no weak references: the board build has none); `stop`
/// unhooks them all, so a stopped server and its connections are held by their owner alone.
package final class ConsoleSocketServer {
    package struct Settings: Sendable {
        /// Connections served at once; beyond it an idle one gives way, or the newcomer is refused.
        var maxConnections = 8
        /// The longest request line, in bytes.
        var maxLineBytes = 4096
        /// How long a client may take to send its line after connecting.
        var requestTimeout: Duration = .seconds(5)
        /// How long output may wait for a client that does not read before it is cut off.
        var writeStallTimeout: Duration = .seconds(10)
        /// The most of one answer held for a slow client.
        var replyLimit = 4 * 1024 * 1024
        /// A `live` reader this far behind is told so and disconnected.
        var liveOutputLimit = 64 * 1024
        /// How long accepting pauses when the process is out of descriptors, instead of spinning on a
        /// listening socket that stays readable.
        var acceptBackoff: Duration = .seconds(1)

        package init() {}
    }

    static let fileName = "console.sock"

    /// Where the socket of the agent using `dataDirectory` lives.
    package static func path(dataDirectory: String) -> String {
        dataDirectory + "/" + fileName
    }

    package let path: String
    private let loop: any EventLoop
    private let table: CommandTable
    private let settings: Settings
    private let log: Logger
    private var listener: Int32?
    private var listenWatch: WatchHandle?
    private var backoffTimer: TimerHandle?
    private var connections: [ConsoleConnection] = []

    package init(loop: any EventLoop, table: CommandTable, path: String, settings: Settings = Settings(), log: Logger = .silent) {
        self.loop = loop
        self.table = table
        self.path = path
        self.settings = settings
        self.log = log
    }

    /// Clients connected now.
    var connectionCount: Int { connections.count }

    /// Creates the socket (replacing a stale one) and starts accepting.
    package func start() throws(ConsoleError) {
        guard listener == nil else { return }
        let fd: Int32
        do { fd = try UnixSocket.listen(at: path) } catch { throw ConsoleError(error.description) }
        listener = fd
        listenWatch = loop.watch(fd: fd, for: .readable) { _ in self.acceptClients() }
    }

    /// Closes every connection and the socket, and removes the socket file.
    package func stop() {
        guard let listener else { return }
        if let listenWatch { loop.unwatch(listenWatch) }
        if let backoffTimer { loop.cancel(backoffTimer) }
        listenWatch = nil
        backoffTimer = nil
        for connection in connections { connection.close() }
        connections = []
        DescriptorIO.close(listener)
        self.listener = nil
        Posix.removeName(path)
    }

    private func acceptClients() {
        guard let listener else { return }
        // A bounded batch per wake-up, so a flood of connections cannot monopolise one loop iteration.
        for accepted in 0..<16 {
            // At the cap, one newcomer per turn of the loop, and only at its start: a connection accepted
            // in this turn has had no chance to send its line yet, so it must not be weighed as idle. The
            // listener stays readable, and the next turn takes the next newcomer.
            let atCap = connections.count >= settings.maxConnections
            if atCap && accepted > 0 { return }
            let fd: Int32
            switch ListeningSocket.accept(listener) {
            case .connection(let accepted): fd = accepted
            case .noneWaiting: return
            case .outOfDescriptors: return pauseAccepting()
            }
            guard atCap else {
                admit(fd)
                continue
            }
            // Connections that have not sent their command yet give way to a new one, oldest first: idle
            // clients cannot keep staff out for the request timeout, let alone for ever.
            if let idle = connections.first(where: { $0.isIdle }) {
                idle.evict(ConsoleFraming.evicted
                           + "\(settings.maxConnections) console connections were open and this one had sent no command")
                admit(fd)
            } else {
                refuse(fd)
            }
            return
        }
    }

    private func admit(_ fd: Int32) {
        let connection = ConsoleConnection(fd: fd, loop: loop, table: table, settings: settings, log: log) { closed in
            self.connections.removeAll { $0 === closed }
        }
        connections.append(connection)
        connection.start()
    }

    /// Tells an extra client why, as far as one non-blocking write allows, and hangs up.
    private func refuse(_ fd: Int32) {
        let answer = ConsoleFraming.answer(ok: false, body: ConsoleFraming.busy
                                           + "\(settings.maxConnections) console connections are open, try again")
        _ = answer.withUnsafeBytes { DescriptorIO.send(fd, $0) }
        DescriptorIO.close(fd)
    }

    private func pauseAccepting() {
        guard let listenWatch, backoffTimer == nil else { return }
        log.warn("console socket: out of descriptors, not accepting for \(settings.acceptBackoff.humanReadable)")
        loop.update(listenWatch, interest: [])
        backoffTimer = loop.schedule(after: settings.acceptBackoff) {
            self.backoffTimer = nil
            guard let watch = self.listenWatch else { return }
            self.loop.update(watch, interest: .readable)
        }
    }
}
