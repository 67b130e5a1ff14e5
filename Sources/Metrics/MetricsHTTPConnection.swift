import EventLoop
import SystemIO

/// One scraper's connection: read the request head, answer once, close. Every misbehaviour ends in a close,
/// never a wait: no head within the request timeout, a head over 8 KiB, a malformed line, a client that does
/// not read its answer for the stall timeout.
final class MetricsHTTPConnection {
    let fd: Int32
    private let loop: any EventLoop
    private let settings: MetricsHTTPServer.Settings
    private let body: () -> String
    private var onClose: (MetricsHTTPConnection) -> Void
    private var received: [UInt8] = []
    private var watch: WatchHandle?
    private var timer: TimerHandle?
    private let writer: DescriptorWriter
    private var answered = false
    private var closed = false
    private var scratch = [UInt8](repeating: 0, count: 2048)

    init(fd: Int32, loop: any EventLoop, settings: MetricsHTTPServer.Settings, body: @escaping () -> String,
         onClose: @escaping (MetricsHTTPConnection) -> Void) {
        self.fd = fd
        self.loop = loop
        self.settings = settings
        self.body = body
        self.onClose = onClose
        writer = DescriptorWriter(loop: loop, fd: fd, settings: DescriptorWriter.Settings(stallTimeout: settings.writeStallTimeout))
    }

    /// From here until `close` the writer, the watch and the timer hold the connection (no weak references:
    /// the board build has none); `close` cancels and unhooks them all.
    func start() {
        writer.onFailure = { _ in self.close() }
        writer.onDrained = { if self.answered { self.close() } }
        watch = loop.watch(fd: fd, for: .readable) { _ in self.read() }
        timer = loop.schedule(after: settings.requestTimeout) {
            self.timer = nil
            self.answer(408, "Request Timeout", "no request within the time allowed\n")
        }
    }

    func close() {
        guard !closed else { return }
        closed = true
        if let watch { loop.unwatch(watch) }
        if let timer { loop.cancel(timer) }
        watch = nil
        timer = nil
        writer.stop()
        writer.onFailure = { _ in }
        writer.onDrained = {}
        DescriptorIO.close(fd)
        let told = onClose
        onClose = { _ in }
        told(self)
    }

    private func read() {
        guard !answered else {
            // What a client sends after its request is not read; its end closes the connection.
            if case .endOfFile = scratch.withUnsafeMutableBytes({ DescriptorIO.receive(fd, into: $0) }) { close() }
            return
        }
        switch scratch.withUnsafeMutableBytes({ DescriptorIO.receive(fd, into: $0) }) {
        case .transferred(let count):
            received += scratch[0..<count]
            if let end = MetricsRequest.headEnd(in: received) {
                respond(to: MetricsRequest(head: received[0..<end]))
            } else if received.count > MetricsRequest.maximumHeadBytes {
                answer(431, "Request Header Fields Too Large", "request head over \(MetricsRequest.maximumHeadBytes) bytes\n")
            }
        case .wouldBlock:
            return
        case .endOfFile, .failed:
            close()
        }
    }

    private func respond(to request: MetricsRequest) {
        switch request {
        case .metrics(let head):
            answer(200, "OK", body(), contentType: PrometheusText.contentType, headOnly: head)
        case .notFound:
            answer(404, "Not Found", "only /metrics is served here\n")
        case .methodNotAllowed:
            answer(405, "Method Not Allowed", "only GET /metrics\n", extraHeaders: "Allow: GET, HEAD\r\n")
        case .badRequest:
            answer(400, "Bad Request", "not an HTTP/1.x request line\n")
        }
    }

    private func answer(_ status: Int, _ reason: String, _ text: String, contentType: String = "text/plain; charset=utf-8",
                        headOnly: Bool = false, extraHeaders: String = "") {
        guard !answered, !closed else { return }
        answered = true
        if let timer { loop.cancel(timer) }
        timer = nil
        let bodyBytes = Array(text.utf8)
        let head = "HTTP/1.1 \(status) \(reason)\r\nContent-Type: \(contentType)\r\nContent-Length: \(bodyBytes.count)\r\n"
            + extraHeaders + "Connection: close\r\n\r\n"
        // Once the writer has drained (maybe at once, inside append) the connection closes.
        writer.append(Array(head.utf8) + (headOnly ? [] : bodyBytes))
    }
}
