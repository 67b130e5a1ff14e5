import EventLoop
import Glibc
import HCI
import Testing

// MARK: - Real descriptors on the real loop

/// A connected pair of Unix stream sockets, both non-blocking: the transport gets one end through its
/// opener, and the test plays the controller on the other.
private final class SocketPair {
    let transportEnd: Int32
    let peerEnd: Int32
    private var peerClosed = false

    init() {
        var ends: [Int32] = [-1, -1]
        precondition(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0,
                     "socketpair failed")
        for end in ends { _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK) }
        transportEnd = ends[0]
        peerEnd = ends[1]
    }

    deinit { closePeer() }

    /// Writes all of `bytes` (the peer's buffer is never full in these tests: they write little).
    func peerWrite(_ bytes: [UInt8]) {
        let written = bytes.withUnsafeBytes { write(peerEnd, $0.baseAddress, $0.count) }
        precondition(written == bytes.count, "short write by the test peer")
    }

    /// Reads at most `limit` bytes without blocking; `endOfFile` when the transport closed its end.
    func peerRead(limit: Int = 65536) -> (bytes: [UInt8], endOfFile: Bool) {
        var buffer = [UInt8](repeating: 0, count: limit)
        let n = buffer.withUnsafeMutableBytes { read(peerEnd, $0.baseAddress, $0.count) }
        if n > 0 { return (Array(buffer[0..<n]), false) }
        return ([], n == 0)
    }

    /// Bytes waiting to be read at the peer's end.
    var peerPending: Int32 {
        var count: Int32 = 0
        _ = ioctl(peerEnd, UInt(FIONREAD), &count)
        return count
    }

    func closePeer() {
        guard !peerClosed else { return }
        peerClosed = true
        close(peerEnd)
    }

    /// An opener handing the transport its end, as the user-channel and UART openers hand theirs.
    var opener: StreamTransport.Opener {
        let fd = transportEnd
        return { () throws(TransportError) in (fd, false) }
    }
}

/// Runs the real loop until `condition` holds, for at most `limit`: a timer checks the condition every
/// millisecond and another stops the loop at the limit, so a failing test ends instead of hanging.
/// Nothing sleeps: the loop keeps serving descriptors the whole time.
private func run(_ loop: PollLoop, until condition: @escaping () -> Bool, limit: Duration = .seconds(5)) -> Bool {
    final class Run { var active = true }
    let this = Run()
    func check() {
        guard this.active else { return }
        if condition() { loop.stop(); return }
        loop.schedule(after: .milliseconds(1)) { check() }
    }
    let deadline = loop.schedule(after: limit) { loop.stop() }
    loop.schedule(after: .zero) { check() }
    loop.run()
    this.active = false
    loop.cancel(deadline)
    return condition()
}

/// Everything a transport handed to its owner.
private final class Received {
    var packets: [H4Packet] = []
    var failures: [TransportError] = []

    func start(_ transport: StreamTransport) {
        transport.start(onPacket: { [unowned self] in packets.append($0) },
                        onFailure: { [unowned self] in failures.append($0) })
    }
}

/// An H4 stream of assorted packets: small and maximal events, an ACL packet with a two-byte length, an
/// empty-parameter event. Deterministic for a seed.
private func assortedPackets(count: Int, seed: UInt64) -> [H4Packet] {
    var random = SeededGenerator(seed: seed)
    return (0..<count).map { i -> H4Packet in
        switch i % 5 {
        case 0: return H4Packet(.commandComplete(CommandComplete(opcode: ResetCommand.opcode, returnParameters: [0x00])))
        case 1: return .event([0xFF, 0xFF] + (0..<255).map { UInt8(truncatingIfNeeded: $0 &+ i) })
        case 2:
            let length = Int.random(in: 0...600, using: &random)
            return .acl([0x40, 0x20, UInt8(length & 0xFF), UInt8(length >> 8)]
                        + (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) })
        case 3: return .event([0x0F, 0x04, 0x00, 0x01, 0x03, 0x0C])
        default: return .event([0xFF, 0x00])
        }
    }
}

@Suite("Stream transport", .serialized)
struct StreamTransportTests {
    @Test("odd-sized chunks with garbage between packets arrive deframed, in order, garbage counted")
    func deframesChunkedStream() throws {
        let loop = PollLoop()
        let pair = SocketPair()
        let transport = StreamTransport(loop: loop, name: "socketpair", opener: pair.opener)
        let received = Received()
        received.start(transport)

        let packets = assortedPackets(count: 200, seed: 3)
        var random = SeededGenerator(seed: 4)
        // Line noise: never an H4 indicator (0x01–0x05), so the deframer must drop each byte alone.
        let noise: [UInt8] = [0x00, 0x06, 0x42, 0x80, 0xFF]
        var stream: [UInt8] = []
        var garbage = 0
        for packet in packets {
            for _ in 0..<Int.random(in: 0...3, using: &random) {
                stream.append(noise.randomElement(using: &random)!)
                garbage += 1
            }
            stream += packet.encoded()
        }
        // Odd chunk sizes, each written on its own turn of the loop, so reads see every kind of split.
        var chunks: [[UInt8]] = []
        var offset = 0
        while offset < stream.count {
            let size = min(2 * Int.random(in: 0...40, using: &random) + 1, stream.count - offset)
            chunks.append(Array(stream[offset..<offset + size]))
            offset += size
        }
        func writeChunk(_ index: Int) {
            guard index < chunks.count else { return }
            pair.peerWrite(chunks[index])
            loop.schedule(after: .zero) { writeChunk(index + 1) }
        }
        loop.schedule(after: .zero) { writeChunk(0) }

        #expect(run(loop, until: { received.packets.count == packets.count }))
        #expect(received.packets == packets)
        #expect(transport.discardedBytes == garbage)
        #expect(garbage > 100)
        #expect(received.failures.isEmpty)
        transport.stop()
    }

    @Test("sent packets come out byte-exact, also when the peer reads slowly and writes would block")
    func sendsByteExactUnderBackpressure() throws {
        let loop = PollLoop()
        let pair = SocketPair()
        // Small kernel buffers, so that the transport's own queue has to hold most of the output.
        var small: Int32 = 4096
        _ = setsockopt(pair.transportEnd, SOL_SOCKET, SO_SNDBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        _ = setsockopt(pair.peerEnd, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        let transport = StreamTransport(loop: loop, name: "socketpair", opener: pair.opener)
        let received = Received()
        received.start(transport)

        var random = SeededGenerator(seed: 8)
        func command(_ i: Int) -> H4Packet {
            let parameters = (0..<Int.random(in: 0...255, using: &random)).map { _ in UInt8(truncatingIfNeeded: i) }
            return .command(HCICommandPacket(opcode: Opcode(rawValue: UInt16(truncatingIfNeeded: i)), parameters: parameters).encoded())
        }
        var expected: [UInt8] = []
        // A burst far beyond the socket buffers, all queued at once.
        for i in 0..<1_000 {
            let packet = command(i)
            expected += packet.encoded()
            transport.send(packet)
        }
        #expect(Int(pair.peerPending) < expected.count, "the burst should not fit in the kernel's buffers")
        // More while the queue is still full: order must hold across the queue and new sends.
        var lateBurstSent = false
        loop.schedule(after: .milliseconds(2)) {
            #expect(pair.peerPending > 0, "the first burst should still be on its way")
            for i in 1_000..<1_200 {
                let packet = command(i)
                expected += packet.encoded()
                transport.send(packet)
            }
            lateBurstSent = true
        }
        // The slow peer: a few hundred bytes per millisecond.
        var output: [UInt8] = []
        func drain() {
            output += pair.peerRead(limit: 700).bytes
            if output.count < expected.count { loop.schedule(after: .milliseconds(1)) { drain() } }
        }
        loop.schedule(after: .milliseconds(1)) { drain() }

        #expect(run(loop, until: { lateBurstSent && output.count >= expected.count }, limit: .seconds(20)))
        #expect(expected.count > 100_000)
        #expect(output.count == expected.count)
        #expect(output == expected)
        #expect(received.failures.isEmpty)
        transport.stop()
    }

    @Test("the peer closing: data before the close is delivered, then one failure that says what happened")
    func peerClose() throws {
        let loop = PollLoop()
        let pair = SocketPair()
        let transport = StreamTransport(loop: loop, name: "uart:/dev/ttyTEST", opener: pair.opener)
        let received = Received()
        received.start(transport)
        let last = H4Packet(.hardwareError(code: 7))
        pair.peerWrite(last.encoded())
        pair.closePeer()

        #expect(run(loop, until: { !received.failures.isEmpty }))
        #expect(received.packets == [last])
        let failure = try #require(received.failures.first)
        #expect(failure == .closed("uart:/dev/ttyTEST: the controller closed the connection"))
        // Dead for good: sending does nothing, and the failure is not reported again.
        transport.send(H4Packet(ResetCommand()))
        _ = run(loop, until: { false }, limit: .milliseconds(50))
        #expect(received.failures.count == 1)
        transport.stop()
    }

    @Test("writing to a peer that has gone fails the link once, without SIGPIPE and not inside send()")
    func writeAfterPeerClosed() throws {
        let loop = PollLoop()
        let pair = SocketPair()
        let transport = StreamTransport(loop: loop, name: "tcp:test:1", opener: pair.opener)
        let received = Received()
        received.start(transport)
        pair.closePeer()
        // The loop has not yet noticed the hangup: this write hits the dead socket directly. A plain
        // write(2) would raise SIGPIPE and kill the process.
        transport.send(H4Packet(ResetCommand()))
        #expect(received.failures.isEmpty, "failures are reported from the loop, never inside send()")
        #expect(run(loop, until: { !received.failures.isEmpty }))
        #expect(received.failures.count == 1)
        let message = received.failures.first?.description ?? ""
        #expect(message.hasPrefix("tcp:test:1: "), "\(message)")
        _ = run(loop, until: { false }, limit: .milliseconds(20))
        #expect(received.failures.count == 1)
        transport.stop()
    }

    @Test("a packet handler may read the transport's counters and stop it: nothing more is delivered")
    func handlerStopsTransport() throws {
        let loop = PollLoop()
        let pair = SocketPair()
        let transport = StreamTransport(loop: loop, name: "socketpair", opener: pair.opener)
        var packets: [H4Packet] = []
        var discardedSeen: [Int] = []
        var failures = 0
        transport.start(onPacket: { packet in
            packets.append(packet)
            discardedSeen.append(transport.discardedBytes)
            transport.stop()
        }, onFailure: { _ in failures += 1 })
        // Three packets in one read; the handler stops the transport at the first.
        pair.peerWrite([0x00] + H4Packet(.hardwareError(code: 1)).encoded() + H4Packet(.hardwareError(code: 2)).encoded()
                       + H4Packet(.hardwareError(code: 3)).encoded())
        #expect(run(loop, until: { !packets.isEmpty }))
        _ = run(loop, until: { false }, limit: .milliseconds(20))
        #expect(packets == [H4Packet(.hardwareError(code: 1))])
        #expect(discardedSeen == [1])
        #expect(failures == 0)
        // The transport closed its end: the peer sees end of file.
        #expect(pair.peerRead().endOfFile)
    }

    @Test("an opener that fails reports once, on the loop, after start() returned")
    func openerFailure() {
        let loop = PollLoop()
        let transport = StreamTransport(loop: loop, name: "uart:/dev/none") { () throws(TransportError) in
            throw .unavailable("/dev/none: no such device: check the cable and the board's UART overlay")
        }
        let received = Received()
        received.start(transport)
        #expect(received.failures.isEmpty)
        #expect(run(loop, until: { !received.failures.isEmpty }))
        #expect(received.failures == [.unavailable("/dev/none: no such device: check the cable and the board's UART overlay")])
        transport.send(H4Packet(ResetCommand()))
        transport.stop()
    }

    // MARK: TCP

    @Test("tcp: connects to a listener on 127.0.0.1, exchanges a packet each way (a command sent while still connecting)")
    func tcpExchange() throws {
        let loop = PollLoop()
        let listener = try TCPListener()
        defer { listener.close() }
        let transport = StreamTransport(.tcp(host: "127.0.0.1", port: listener.port), loop: loop)
        let received = Received()
        received.start(transport)
        // Queued until the connection completes.
        let command = H4Packet(LESetScanEnableCommand(isEnabled: true, filterDuplicates: false))
        transport.send(command)

        var server: Int32 = -1
        var fromHost: [UInt8] = []
        var serverWatch: WatchHandle?
        let listenWatch = loop.watch(fd: listener.fd, for: .readable) { _ in
            guard server < 0 else { return }
            server = accept(listener.fd, nil, nil)
            guard server >= 0 else { return }
            _ = fcntl(server, F_SETFL, fcntl(server, F_GETFL) | O_NONBLOCK)
            let answer = H4Packet(.commandComplete(CommandComplete(opcode: LESetScanEnableCommand.opcode, returnParameters: [0])))
            let bytes = answer.encoded()
            _ = bytes.withUnsafeBytes { write(server, $0.baseAddress, $0.count) }
            serverWatch = loop.watch(fd: server, for: .readable) { _ in
                var buffer = [UInt8](repeating: 0, count: 1024)
                let n = buffer.withUnsafeMutableBytes { read(server, $0.baseAddress, $0.count) }
                if n > 0 { fromHost += buffer[0..<n] }
            }
        }
        #expect(run(loop, until: { fromHost.count >= command.encoded().count && !received.packets.isEmpty }))
        #expect(fromHost == command.encoded())
        #expect(received.packets.first?.event == .commandComplete(
            CommandComplete(opcode: LESetScanEnableCommand.opcode, returnParameters: [0])))
        #expect(received.failures.isEmpty)
        transport.stop()
        loop.unwatch(listenWatch)
        if let serverWatch { loop.unwatch(serverWatch) }
        if server >= 0 { close(server) }
    }

    @Test("tcp: nobody listening → one failure naming host:port")
    func tcpRefused() throws {
        let loop = PollLoop()
        // Bound but not listening: the port is ours, so nothing else can answer on it, and connecting is refused.
        let closed = try TCPListener(listening: false)
        defer { closed.close() }
        let transport = StreamTransport(.tcp(host: "127.0.0.1", port: closed.port), loop: loop)
        let received = Received()
        received.start(transport)
        #expect(received.failures.isEmpty)
        #expect(run(loop, until: { !received.failures.isEmpty }))
        #expect(received.failures.count == 1)
        let message = received.failures.first?.description ?? ""
        #expect(message.contains("127.0.0.1:\(closed.port)"), "\(message)")
        #expect(message.contains("refused"), "\(message)")
        #expect(received.packets.isEmpty)
        transport.stop()
    }

    // MARK: the driver over real descriptors

    @Test("the driver over a socketpair on the real loop: brings a strict controller up, and reconnects when the socket closes")
    func driverOverSocketpair() throws {
        let loop = PollLoop()
        let controller = VirtualController(
            loop: loop, configuration: VirtualControllerConfiguration(publicAddress: BDAddress(rawValue: 0x00_1B_DC_00_00_01)))
        var bridges: [SocketBridge] = []
        let driver = ControllerDriver(loop: loop, log: .silent) {
            let pair = SocketPair()
            bridges.append(SocketBridge(loop: loop, pair: pair, controller: controller))
            return StreamTransport(loop: loop, name: "socketpair", opener: pair.opener)
        }
        let goal = RadioGoal(broadcast: .init(address: BDAddress(rawValue: 0x12_34_56_78_9A_BC), data: [0x02, 0x01, 0x06]),
                             scanning: true)
        driver.goal = goal
        driver.start()
        func onAir() -> Bool {
            controller.state.isAdvertising && controller.state.randomAddress == goal.broadcast?.address
                && controller.state.advertisingData == goal.broadcast?.data && controller.state.isScanning
                && driver.phase == .ready
        }
        #expect(run(loop, until: onAir))
        #expect(controller.violations.isEmpty)
        #expect(driver.counters.initializations == 1)

        // The controller's end of the socket goes away, as a TCP peer or a USB adapter does.
        bridges[0].close()
        #expect(run(loop, until: { driver.counters.initializations == 2 && onAir() }))
        #expect(driver.counters.transportFailures == 1)
        #expect(bridges.count == 2)
        #expect(controller.violations.isEmpty)
        driver.stop()
        for bridge in bridges { bridge.close() }
    }

    @Test("the virtual transport is not a stream: a transport made for it fails at start, saying so")
    func virtualIsNotAStream() {
        let loop = PollLoop()
        let received = Received()
        let transport = StreamTransport(.virtual, loop: loop)
        received.start(transport)
        #expect(received.failures.isEmpty)
        #expect(run(loop, until: { !received.failures.isEmpty }))
        #expect(received.failures.map(\.description) == ["virtual: the in-process controller is not a stream; the agent links it itself"])
    }
}

/// A TCP socket on 127.0.0.1 with a kernel-chosen port, listening or merely bound.
private struct TCPListener {
    struct Failed: Error { let call: String }

    let fd: Int32
    let port: UInt16

    init(listening: Bool = true) throws {
        let socketFD = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard socketFD >= 0 else { throw Failed(call: "socket") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socketFD, $0, length) }
        }
        guard bound == 0 else { throw Failed(call: "bind") }
        if listening { guard listen(socketFD, 4) == 0 else { throw Failed(call: "listen") } }
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socketFD, $0, &length) }
        }
        guard named == 0 else { throw Failed(call: "getsockname") }
        fd = socketFD
        port = UInt16(bigEndian: address.sin_port)
    }

    func close() { _ = Glibc.close(fd) }
}

/// Plays a virtual controller on the peer end of a socket: H4 bytes in are deframed and handed to the
/// controller's host link; its events go back out as bytes. What a UART or Bumble's TCP server does.
private final class SocketBridge {
    private let loop: PollLoop
    private let pair: SocketPair
    private let link: any HCITransport
    private var watch: WatchHandle?
    private var deframer = H4Deframer()

    init(loop: PollLoop, pair: SocketPair, controller: VirtualController) {
        self.loop = loop
        self.pair = pair
        link = controller.makeHostTransport()
        link.start(onPacket: { packet in pair.peerWrite(packet.encoded()) }, onFailure: { _ in })
        watch = loop.watch(fd: pair.peerEnd, for: .readable) { [unowned self] _ in
            let (bytes, endOfFile) = pair.peerRead()
            for packet in deframer.feed(bytes) { link.send(packet) }
            if endOfFile { close() }
        }
    }

    func close() {
        if let watch { loop.unwatch(watch) }
        watch = nil
        link.stop()
        pair.closePeer()
    }
}
