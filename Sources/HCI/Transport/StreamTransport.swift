import EventLoop
import SystemIO
#if canImport(Glibc)
import Glibc
#endif

/// An H4 byte stream on a non-blocking file descriptor (HCI user channel socket, UART, TCP), serviced
/// by the event loop: reads are deframed into packets, writes go through a `DescriptorWriter` (queued,
/// flushed when the fd is writable). Nothing here blocks the loop.
public final class StreamTransport: HCITransport {
    /// Opens the descriptor. `connecting` is true for a non-blocking TCP connect still in progress.
    public typealias Opener = () throws(TransportError) -> (fd: Int32, connecting: Bool)

    private let loop: any EventLoop
    private let name: String
    private let opener: Opener
    private let onConnected: (Int32) -> TransportError?
    private var fd: Int32 = -1
    private var watch: WatchHandle?
    private var connecting = false
    private var deframer = H4Deframer()
    private var writer: DescriptorWriter?
    /// True while `send` runs: a write failure found there is reported on the next turn, not inside it.
    private var sending = false
    private var readBuffer = [UInt8](repeating: 0, count: 65536)
    private var onPacket: (H4Packet) -> Void = { _ in }
    private var onFailure: (TransportError) -> Void = { _ in }
    private var failed = false
    /// Bumped by every start: a failure reported late must not reach the callbacks of a later start.
    private var session = 0

    /// Bytes dropped by the deframer while resynchronising after garbage.
    public var discardedBytes: Int { deframer.discardedByteCount }

    public init(loop: any EventLoop, name: String, opener: @escaping Opener,
                onConnected: @escaping (Int32) -> TransportError? = { _ in nil }) {
        self.loop = loop
        self.name = name
        self.opener = opener
        self.onConnected = onConnected
    }

    /// The transport for a stream spec. `virtual` has no descriptor (the agent wires the in-process
    /// controller itself): a transport made for it fails at start, saying so. `log` hears what opening did
    /// besides opening (an adapter taken over from another host stack).
    public convenience init(_ spec: TransportSpec, loop: any EventLoop, log: Logger = .silent) {
        switch spec {
        case .userChannel(let adapter):
            self.init(loop: loop, name: spec.description) { () throws(TransportError) in
                (try TransportOpeners.userChannel(adapter: adapter, notice: { log.warn($0) }), false)
            }
        case .uart(let path, let baud, let flow):
            self.init(loop: loop, name: spec.description) { () throws(TransportError) in
                (try TransportOpeners.uart(path: path, baud: baud, flowControl: flow), false)
            }
        case .tcp(let host, let port):
            self.init(loop: loop, name: spec.description, opener: { () throws(TransportError) in
                (try TransportOpeners.tcpConnect(host: host, port: port), true)
            }, onConnected: { fd in TransportOpeners.connectionResult(fd: fd, host: host, port: port) })
        case .virtual:
            self.init(loop: loop, name: spec.description) { () throws(TransportError) in
                throw .unavailable("virtual: the in-process controller is not a stream; the agent links it itself")
            }
        }
    }

    public func start(onPacket: @escaping (H4Packet) -> Void, onFailure: @escaping (TransportError) -> Void) {
        self.onPacket = onPacket
        self.onFailure = onFailure
        session += 1
        failed = false
        deframer.reset()
        do {
            let opened = try opener()
            fd = opened.fd
            connecting = opened.connecting
        } catch {
            // Report on the next turn so the caller's start() finishes before its failure handler runs.
            loop.schedule(after: .zero) { self.fail(error) }
            return
        }
        let writer = DescriptorWriter(loop: loop, fd: fd)
        writer.isHeld = connecting
        writer.onFailure = { failure in self.writeFailed(failure) }
        self.writer = writer
        // The loop and the writer hold this transport until `stop()` (or a failure, which stops it) lets go.
        watch = loop.watch(fd: fd, for: connecting ? .writable : .readable) { readiness in self.service(readiness) }
    }

    public func send(_ packet: H4Packet) {
        guard fd >= 0, !failed, let writer else { return }
        sending = true
        writer.append(packet.encoded())
        sending = false
    }

    public func stop() {
        if let watch { loop.unwatch(watch) }
        watch = nil
        writer?.stop()
        writer = nil
        if fd >= 0 { close(fd) }
        fd = -1
        onPacket = { _ in }
        onFailure = { _ in }
    }

    private func writeFailed(_ failure: DescriptorWriter.Failure) {
        let error = TransportError.closed("\(name): write failed: \(failure)")
        guard sending else { return fail(error) }
        // The caller is in the middle of its own bookkeeping (the driver sends from inside its command
        // queue): tell it on the next turn, as every other failure is told, never from inside send().
        failed = true
        let mySession = session
        loop.schedule(after: .zero) {
            guard self.session == mySession else { return }
            let handler = self.onFailure
            self.stop()
            handler(error)
        }
    }

    private func service(_ readiness: FDReadiness) {
        if connecting {
            guard readiness.contains(.writable) || readiness.contains(.error) || readiness.contains(.hangup) else { return }
            if let error = onConnected(fd) { fail(error); return }
            connecting = false
            if let watch { loop.update(watch, interest: .readable) }
            writer?.isHeld = false
            return
        }
        if readiness.contains(.readable) || readiness.contains(.hangup) || readiness.contains(.error) {
            readAvailable()
        }
        if readiness.contains(.invalid) { fail(.closed("\(name): descriptor closed")) }
    }

    /// One read per wake-up: a flood on this descriptor cannot starve timers or other descriptors.
    private func readAvailable() {
        switch readBuffer.withUnsafeMutableBytes({ DescriptorIO.read(fd, into: $0) }) {
        case .transferred(let n):
            // Deframe first, deliver afterwards: a handler that looks at `discardedBytes`, or stops and
            // restarts this transport, would otherwise touch the deframer while `feed` is mutating it
            // (a fatal exclusivity violation). A handler that stops the transport ends the delivery.
            let packets = deframer.feed(readBuffer[0..<n])
            let mySession = session
            for packet in packets {
                guard !failed, fd >= 0, session == mySession else { break }
                onPacket(packet)
            }
        case .endOfFile:
            fail(.closed("\(name): the controller closed the connection"))
        case .wouldBlock:
            return
        case .failed(let code):
            fail(.closed("\(name): read failed: \(SystemError(call: "read", code: code).reason)"))
        }
    }

    private func fail(_ error: TransportError) {
        guard !failed else { return }
        failed = true
        let handler = onFailure
        stop()
        handler(error)
    }
}
