import EventLoop
import SystemIO

/// `GET /metrics` over plain HTTP on the loop, for a Prometheus that scrapes the badge itself
/// (`metrics.listen ADDRESS:PORT`). The same rules as the console socket: a bounded number of connections,
/// each answered once and closed, a request timeout, a bounded request head, a stall timeout for a client that
/// does not read; at the cap the oldest connection that has sent nothing gives way, else the newcomer is
/// closed. A flood of connections or of garbage costs the loop bounded work per turn and never stalls it.
public final class MetricsHTTPServer {
    public struct Settings: Sendable {
        public var maxConnections = 16
        public var requestTimeout: Duration = .seconds(5)
        public var writeStallTimeout: Duration = .seconds(10)
        public init() {}
    }

    public let address: IPv4Endpoint
    private let loop: any EventLoop
    private let settings: Settings
    private let body: () -> String
    private let log: Logger
    private var listener: Int32?
    private var listenWatch: WatchHandle?
    private var connections: [MetricsHTTPConnection] = []
    /// Connections answered or closed since the server started.
    public private(set) var served = 0

    public init(address: IPv4Endpoint, loop: any EventLoop, settings: Settings = Settings(), log: Logger,
                body: @escaping () -> String) {
        self.address = address
        self.loop = loop
        self.settings = settings
        self.log = log
        self.body = body
    }

    public var connectionCount: Int { connections.count }

    /// The port listened on (the one asked for, or the kernel's choice for port 0).
    public private(set) var port: UInt16 = 0

    public func start() throws(SystemError) {
        guard listener == nil else { return }
        let (fd, port) = try TCPListener.listen(on: address)
        self.port = port
        listener = fd
        listenWatch = loop.watch(fd: fd, for: .readable) { [weak self] _ in self?.accept() }
        log.info("metrics: serving http://\(address.host):\(port)/metrics")
    }

    public func stop() {
        guard let listener else { return }
        if let listenWatch { loop.unwatch(listenWatch) }
        listenWatch = nil
        for connection in connections { connection.close() }
        connections = []
        DescriptorIO.close(listener)
        self.listener = nil
    }

    private func accept() {
        guard let listener else { return }
        // A bounded batch per turn, as the console socket does.
        for _ in 0..<16 {
            guard let fd = TCPListener.accept(listener) else { return }
            if connections.count >= settings.maxConnections {
                // The oldest connection gives way: a scraper sends its request at once, and one that has
                // not by now is the likeliest to be idle.
                connections.first?.close()
            }
            let connection = MetricsHTTPConnection(fd: fd, loop: loop, settings: settings, body: body) { [weak self] closed in
                self?.served += 1
                self?.connections.removeAll { $0 === closed }
            }
            connections.append(connection)
            connection.start()
        }
    }
}
