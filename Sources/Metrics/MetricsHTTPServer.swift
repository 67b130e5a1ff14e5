import EventLoop
import SystemIO

/// `GET /metrics` over plain HTTP on the loop, for a Prometheus that scrapes the badge itself
/// (`metrics.listen ADDRESS:PORT`). The same rules as the console socket: a bounded number of connections,
/// each answered once and closed, a request timeout, a bounded request head, a stall timeout for a client that
/// does not read; at the cap the oldest connection that has sent nothing gives way, else the newcomer is
/// closed. A flood of connections or of garbage costs the loop bounded work per turn and never stalls it.
package final class MetricsHTTPServer {
    package struct Settings: Sendable {
        var maxConnections = 16
        var requestTimeout: Duration = .seconds(5)
        var writeStallTimeout: Duration = .seconds(10)
        /// How long the listener is left alone when the process is out of descriptors: it stays readable,
        /// and accepting again at once would spin the loop.
        var acceptBackoff: Duration = .seconds(1)
        package init() {}
    }

    package let address: IPv4Endpoint
    private let loop: any EventLoop
    private let settings: Settings
    private let body: () -> String
    private let log: Logger
    private var listener: Int32?
    private var listenWatch: WatchHandle?
    private var backoffTimer: TimerHandle?
    private var connections: [MetricsHTTPConnection] = []
    /// Connections answered or closed since the server started.
    private(set) var served = 0

    init(address: IPv4Endpoint, loop: any EventLoop, settings: Settings = Settings(), log: Logger,
                body: @escaping () -> String) {
        self.address = address
        self.loop = loop
        self.settings = settings
        self.log = log
        self.body = body
    }

    var connectionCount: Int { connections.count }

    /// The port listened on (the one asked for, or the kernel's choice for port 0).
    private(set) var port: UInt16 = 0

    package func start() throws(SystemError) {
        guard listener == nil else { return }
        let (fd, port) = try TCPListener.listen(on: address)
        self.port = port
        listener = fd
        // The loop holds the server through this watch until `stop` removes it.
        listenWatch = loop.watch(fd: fd, for: .readable) { _ in self.accept() }
        log.info("metrics: serving http://\(address.host):\(port)/metrics")
    }

    package func stop() {
        guard let listener else { return }
        if let listenWatch { loop.unwatch(listenWatch) }
        listenWatch = nil
        if let backoffTimer { loop.cancel(backoffTimer) }
        backoffTimer = nil
        for connection in connections { connection.close() }
        connections = []
        DescriptorIO.close(listener)
        self.listener = nil
    }

    private func accept() {
        guard let listener else { return }
        // A bounded batch per turn, as the console socket does.
        for _ in 0..<16 {
            let fd: Int32
            switch ListeningSocket.accept(listener) {
            case .connection(let accepted): fd = accepted
            case .noneWaiting: return
            case .outOfDescriptors: return pauseAccepting()
            }
            if connections.count >= settings.maxConnections {
                // The oldest connection gives way: a scraper sends its request at once, and one that has
                // not by now is the likeliest to be idle.
                connections.first?.close()
            }
            let connection = MetricsHTTPConnection(fd: fd, loop: loop, settings: settings, body: body) { closed in
                // The connection lets go of this closure, and so of the server, once it has closed.
                self.served += 1
                self.connections.removeAll { $0 === closed }
            }
            connections.append(connection)
            connection.start()
        }
    }

    private func pauseAccepting() {
        guard let listenWatch, backoffTimer == nil else { return }
        log.warn("metrics: out of descriptors, not accepting for \(settings.acceptBackoff.humanReadable)")
        loop.update(listenWatch, interest: [])
        backoffTimer = loop.schedule(after: settings.acceptBackoff) {  // cancelled by stop()
            self.backoffTimer = nil
            if let watch = self.listenWatch { self.loop.update(watch, interest: .readable) }
        }
    }
}
