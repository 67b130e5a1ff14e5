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
    public static func make(_ spec: TransportSpec, loop: any EventLoop) -> StreamTransport? {
        switch spec {
        case .userChannel(let adapter):
            return StreamTransport(loop: loop, name: spec.description) { () throws(TransportError) in
                (try TransportOpeners.userChannel(adapter: adapter), false)
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
        if !connecting { flush() }
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
            flush()
            updateInterest()
            return
        }
        if readiness.contains(.readable) || readiness.contains(.hangup) || readiness.contains(.error) {
            readAvailable()
        }
        if readiness.contains(.invalid) { fail(.closed("\(name): descriptor closed")) }
        if !failed, readiness.contains(.writable) { flush() }
    }

    /// One read per wake-up: a flood on this descriptor cannot starve timers or other descriptors.
    private func readAvailable() {
        let n = readBuffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n > 0 {
            deframer.feed(readBuffer[0..<n]) { [self] packet in
                if !failed { onPacket(packet) }
            }
        } else if n == 0 {
            fail(.closed("\(name): the controller closed the connection"))
        } else if errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR {
            fail(.closed("\(name): read failed: \(String(cString: strerror(errno)))"))
        }
    }

    private func flush() {
        while outputOffset < output.count {
            let n = output[outputOffset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if n > 0 {
                outputOffset += n
            } else if n < 0 && errno == EINTR {
                continue
            } else if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                break
            } else {
                fail(.closed("\(name): write failed: \(String(cString: strerror(errno)))"))
                return
            }
        }
        if outputOffset == output.count {
            output.removeAll(keepingCapacity: true)
            outputOffset = 0
        }
        updateInterest()
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
