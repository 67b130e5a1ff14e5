import EventLoop
#if canImport(Glibc)
import Glibc
#endif

/// An H4 byte stream on a non-blocking file descriptor (HCI user channel socket, UART, TCP), serviced
/// by the event loop: reads are deframed into packets, writes are queued and flushed when the fd is
/// writable. Nothing here blocks the loop.
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
    private var output: [UInt8] = []
    private var outputOffset = 0
    private var readBuffer = [UInt8](repeating: 0, count: 65536)
    private var onPacket: (H4Packet) -> Void = { _ in }
    private var onFailure: (TransportError) -> Void = { _ in }
    private var failed = false
    /// Bumped by every start: a failure reported late must not reach the callbacks of a later start.
    private var session = 0
    /// False once a write said the descriptor is not a socket (a UART): plain write(2) from then on.
    private var isSocket = true

    /// Bytes dropped by the deframer while resynchronising after garbage.
    public var discardedBytes: Int { deframer.discardedByteCount }

    public init(loop: any EventLoop, name: String, opener: @escaping Opener,
                onConnected: @escaping (Int32) -> TransportError? = { _ in nil }) {
        self.loop = loop
        self.name = name
        self.opener = opener
        self.onConnected = onConnected
    }

    /// The transport for a spec; `virtual` is not a file descriptor and is wired by the agent.
    /// `log` hears what opening did besides opening (an adapter taken over from another host stack).
    public static func make(_ spec: TransportSpec, loop: any EventLoop, log: Logger = .silent) -> StreamTransport? {
        switch spec {
        case .userChannel(let adapter):
            return StreamTransport(loop: loop, name: spec.description) { () throws(TransportError) in
                (try TransportOpeners.userChannel(adapter: adapter, notice: { log.warn($0) }), false)
            }
        case .uart(let path, let baud, let flow):
            return StreamTransport(loop: loop, name: spec.description) { () throws(TransportError) in
                (try TransportOpeners.uart(path: path, baud: baud, flowControl: flow), false)
            }
        case .tcp(let host, let port):
            return StreamTransport(loop: loop, name: spec.description, opener: { () throws(TransportError) in
                (try TransportOpeners.tcpConnect(host: host, port: port), true)
            }, onConnected: { fd in TransportOpeners.connectionResult(fd: fd, host: host, port: port) })
        case .virtual:
            return nil
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
            loop.schedule(after: .zero) { [weak self] in self?.fail(error) }
            return
        }
        watch = loop.watch(fd: fd, for: connecting ? .writable : wantedInterest) { [weak self] readiness in
            self?.service(readiness)
        }
    }

    public func send(_ packet: H4Packet) {
        guard fd >= 0, !failed else { return }
        output += packet.encoded()
        guard !connecting, let error = flush() else { return }
        // The caller is in the middle of its own bookkeeping (the driver sends from inside its command
        // queue): tell it on the next turn, as every other failure is told, never from inside send().
        failed = true
        let mySession = session
        loop.schedule(after: .zero) { [weak self] in
            guard let self, self.session == mySession else { return }
            let handler = self.onFailure
            self.stop()
            handler(error)
        }
    }

    public func stop() {
        if let watch { loop.unwatch(watch) }
        watch = nil
        if fd >= 0 { close(fd) }
        fd = -1
        output.removeAll()
        outputOffset = 0
        onPacket = { _ in }
        onFailure = { _ in }
    }

    private var wantedInterest: FDInterest {
        outputOffset < output.count ? [.readable, .writable] : .readable
    }

    private func service(_ readiness: FDReadiness) {
        if connecting {
            guard readiness.contains(.writable) || readiness.contains(.error) || readiness.contains(.hangup) else { return }
            if let error = onConnected(fd) { fail(error); return }
            connecting = false
            if let error = flush() { fail(error) }
            return
        }
        if readiness.contains(.readable) || readiness.contains(.hangup) || readiness.contains(.error) {
            readAvailable()
        }
        if readiness.contains(.invalid) { fail(.closed("\(name): descriptor closed")) }
        // The packet handler may have stopped the transport (fd is then -1).
        if !failed, fd >= 0, readiness.contains(.writable), let error = flush() { fail(error) }
    }

    /// One read per wake-up: a flood on this descriptor cannot starve timers or other descriptors.
    private func readAvailable() {
        let n = readBuffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n > 0 {
            // Deframe first, deliver afterwards: a handler that looks at `discardedBytes`, or stops and
            // restarts this transport, would otherwise touch the deframer while `feed` is mutating it
            // (a fatal exclusivity violation). A handler that stops the transport ends the delivery.
            let packets = deframer.feed(readBuffer[0..<n])
            let mySession = session
            for packet in packets {
                guard !failed, fd >= 0, session == mySession else { break }
                onPacket(packet)
            }
        } else if n == 0 {
            fail(.closed("\(name): the controller closed the connection"))
        } else if errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR {
            fail(.closed("\(name): read failed: \(String(cString: strerror(errno)))"))
        }
    }

    /// Writes as much queued output as the descriptor takes; the failure, if the link is dead.
    private func flush() -> TransportError? {
        while outputOffset < output.count {
            let n = output[outputOffset...].withUnsafeBytes { writeOut($0) }
            if n > 0 {
                outputOffset += n
            } else if n < 0 && errno == EINTR {
                continue
            } else if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                break
            } else {
                return .closed("\(name): write failed: \(String(cString: strerror(errno)))")
            }
        }
        if outputOffset == output.count {
            output.removeAll(keepingCapacity: true)
            outputOffset = 0
        }
        updateInterest()
        return nil
    }

    /// send(2) with MSG_NOSIGNAL on sockets: a peer that went away (TCP, a user channel whose adapter
    /// was unplugged) must give EPIPE, not a SIGPIPE that kills the process. UARTs are not sockets.
    private func writeOut(_ bytes: UnsafeRawBufferPointer) -> Int {
        if isSocket {
            let n = Glibc.send(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL))
            if n >= 0 || errno != ENOTSOCK { return n }
            isSocket = false
        }
        return write(fd, bytes.baseAddress, bytes.count)
    }

    private func updateInterest() {
        if let watch, !failed { loop.update(watch, interest: wantedInterest) }
    }

    private func fail(_ error: TransportError) {
        guard !failed else { return }
        failed = true
        let handler = onFailure
        stop()
        handler(error)
    }
}
