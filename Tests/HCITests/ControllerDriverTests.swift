import ENCore
import EventLoop
import HCI
import Testing

// MARK: - Harness: a driver on a strict virtual controller, in virtual time

/// A transport between the driver and a virtual controller's host link that lets a test watch and
/// meddle: see every packet both ways with its time, act before a command reaches the controller
/// (go silent exactly when a given command is sent), rewrite the controller's answers, and inject
/// events of its own.
final class TappedTransport: HCITransport {
    private let inner: any HCITransport
    private let tap: LinkTap
    private var onPacket: ((H4Packet) -> Void)?
    let openedAt: MonotonicInstant
    private(set) var stoppedAt: MonotonicInstant?

    fileprivate init(_ inner: any HCITransport, tap: LinkTap) {
        self.inner = inner
        self.tap = tap
        openedAt = tap.loop.now
    }

    func start(onPacket: @escaping (H4Packet) -> Void, onFailure: @escaping (TransportError) -> Void) {
        self.onPacket = onPacket
        inner.start(onPacket: { [weak self] packet in
            guard let self else { return }
            self.tap.controllerSent.append((self.tap.loop.now, packet))
            for rewritten in self.tap.rewrite(packet) { onPacket(rewritten) }
        }, onFailure: onFailure)
    }

    func send(_ packet: H4Packet) {
        tap.hostSent.append((tap.loop.now, packet))
        tap.beforeForwarding(packet)
        inner.send(packet)
    }

    func stop() {
        stoppedAt = tap.loop.now
        onPacket = nil
        inner.stop()
    }

    /// Hands `packet` to the driver as if the controller had sent it. Call from a loop callback.
    func inject(_ packet: H4Packet) {
        onPacket?(packet)
    }
}

/// What every link of one harness shares: hooks and the traffic record, across reconnections.
final class LinkTap {
    let loop: VirtualLoop
    /// Runs before a host packet reaches the controller.
    var beforeForwarding: (H4Packet) -> Void = { _ in }
    /// Turns one controller packet into what the driver gets (none, the same, or others).
    var rewrite: (H4Packet) -> [H4Packet] = { [$0] }
    var hostSent: [(time: MonotonicInstant, packet: H4Packet)] = []
    var controllerSent: [(time: MonotonicInstant, packet: H4Packet)] = []
    private(set) var links: [TappedTransport] = []

    init(loop: VirtualLoop) { self.loop = loop }

    func open(_ inner: any HCITransport) -> TappedTransport {
        let link = TappedTransport(inner, tap: self)
        links.append(link)
        return link
    }

    /// Opcodes of the commands the host sent, in order.
    var hostOpcodes: [Opcode] {
        hostSent.compactMap { entry in
            guard case .command(let bytes) = entry.packet, bytes.count >= 2 else { return nil }
            return Opcode(rawValue: UInt16(bytes[0]) | UInt16(bytes[1]) << 8)
        }
    }
}

/// One driver and GAEN radio on a strict virtual controller, with beacons around if a test wants them.
final class DriverHarness {
    let loop = VirtualLoop()
    let radio: VirtualRadio
    let controller: VirtualController
    let tap: LinkTap
    let driver: ControllerDriver
    let gaen: GAENRadio
    var generator: SeededGenerator
    private(set) var reports: [GAENReport] = []
    private(set) var readyCount = 0
    private var payloadSerial: UInt32 = 0
    private let logSink = LogSink()
    /// Everything the driver logged, debug included.
    var log: [(level: Logger.Level, line: String)] { logSink.lines }

    init(settings: DriverSettings = DriverSettings(), latency: Duration = .milliseconds(1),
         style: VirtualReportStyle = .legacy, seed: UInt64 = 1) {
        radio = VirtualRadio(loop: loop, seed: seed)
        controller = radio.addController(
            VirtualControllerConfiguration(publicAddress: BDAddress(rawValue: 0x00_1B_DC_01_02_03), txPower: 4,
                                           commandLatency: latency, reportStyle: style),
            at: .origin)
        tap = LinkTap(loop: loop)
        generator = SeededGenerator(seed: seed)
        let controller = controller, tap = tap, sink = logSink
        driver = ControllerDriver(loop: loop, settings: settings,
                                  log: Logger(level: .debug) { level, line in sink.lines.append((level, line)) },
                                  makeTransport: { tap.open(controller.makeHostTransport()) })
        gaen = GAENRadio(driver: driver)
        gaen.onReport = { [unowned self] in reports.append($0) }
        driver.onReady = { [unowned self] in readyCount += 1 }
    }

    /// Starts the driver and lets the initialisation finish.
    func startAndWaitUntilReady(sourceLocation: SourceLocation = #_sourceLocation) {
        gaen.start()
        let took = run(until: { self.driver.phase == .ready }, within: .seconds(1))
        #expect(took != nil, "the driver did not become ready", sourceLocation: sourceLocation)
    }

    /// A GAEN payload no other call of this harness returns: the RPI carries a serial number.
    func freshPayload() -> AdvertisingPayload {
        payloadSerial += 1
        var rpi = [UInt8](repeating: 0xA5, count: 16)
        withUnsafeBytes(of: payloadSerial.bigEndian) { rpi.replaceSubrange(12..<16, with: $0) }
        return AdvertisingPayload(rpi: Bytes16(rpi)!, aem: AssociatedEncryptedMetadata(word: payloadSerial))
    }

    /// Puts a fresh payload on air through the GAEN radio, as a rotation does.
    @discardableResult
    func rotate() -> AdvertisingPayload {
        let payload = freshPayload()
        gaen.broadcast(payload, address: .nonResolvablePrivate(using: &generator))
        return payload
    }

    /// Fires timers one by one until `condition` holds; the virtual time that took, or nil when it
    /// did not hold within `limit` (or the loop ran dry).
    func run(until condition: () -> Bool, within limit: Duration) -> Duration? {
        let start = loop.now
        while !condition() {
            guard loop.now - start <= limit, let next = loop.nextDeadline, next - start <= limit else { return nil }
            loop.step()
        }
        return loop.now - start
    }

    /// Whether the controller itself (not the driver's model of it) does exactly what the goal asks:
    /// the goal's address and payload on air, and scanning as asked.
    var controllerMatchesGoal: Bool {
        let s = controller.state
        if let b = driver.goal.broadcast {
            guard s.isAdvertising, s.randomAddress == b.address, s.advertisingData == b.data,
                  s.advertisingParameters.ownAddressType == .random,
                  s.advertisingParameters.type == .nonConnectableUndirected
            else { return false }
        } else if s.isAdvertising {
            return false
        }
        return s.isScanning == driver.goal.scanning && driver.phase == .ready
    }

    /// GAEN's privacy rule over everything the controller ever put on air: an address never carried
    /// two payloads, and a payload never went out under two addresses.
    func expectNoLinkableBroadcasts(sourceLocation: SourceLocation = #_sourceLocation) {
        var dataByAddress: [BDAddress: Set<[UInt8]>] = [:]
        var addressesByData: [[UInt8]: Set<BDAddress>] = [:]
        for entry in controller.advertisingHistory {
            dataByAddress[entry.address, default: []].insert(entry.data)
            addressesByData[entry.data, default: []].insert(entry.address)
        }
        let reused = dataByAddress.filter { $0.value.count > 1 }
        let moved = addressesByData.filter { $0.value.count > 1 }
        #expect(reused.isEmpty, "addresses with two payloads: \(reused.keys.sorted())", sourceLocation: sourceLocation)
        #expect(moved.isEmpty, "\(moved.count) payload(s) under two addresses", sourceLocation: sourceLocation)
    }
}

/// Collects log lines; a class so the driver's logger closure and the harness share it.
final class LogSink {
    var lines: [(level: Logger.Level, line: String)] = []
}

extension H4Packet {
    /// The decoded event, or nil for anything else (or an undecodable event).
    var event: HCIEvent? {
        guard case .event(let bytes) = self else { return nil }
        return try? HCIEvent(decoding: bytes)
    }

    /// The opcode of a command packet.
    var commandOpcode: Opcode? {
        guard case .command(let bytes) = self, bytes.count >= 2 else { return nil }
        return Opcode(rawValue: UInt16(bytes[0]) | UInt16(bytes[1]) << 8)
    }
}

/// The commands initialisation sends, in order.
let initialisationOpcodes: [Opcode] = [
    ResetCommand.opcode, ReadLocalVersionInformationCommand.opcode, ReadBDAddrCommand.opcode,
    SetEventMaskCommand.opcode, LESetEventMaskCommand.opcode, LEReadBufferSizeCommand.opcode,
    LEReadLocalSupportedFeaturesCommand.opcode, LEReadAdvertisingPhysicalChannelTxPowerCommand.opcode,
    LESetAdvertisingEnableCommand.opcode, LESetScanEnableCommand.opcode,
]

// MARK: - Tests

@Suite("Controller driver")
struct ControllerDriverTests {
    @Test("initialises the controller in order, learns what it is, and reports ready once")
    func initialisation() throws {
        let h = DriverHarness()
        h.startAndWaitUntilReady()
        #expect(h.tap.hostOpcodes == initialisationOpcodes)
        #expect(h.controller.commandLog.map(\.opcode) == initialisationOpcodes)
        #expect(h.controller.violations.isEmpty)
        #expect(h.readyCount == 1)
        #expect(h.driver.counters.initializations == 1)
        #expect(h.driver.info.publicAddress == BDAddress(rawValue: 0x00_1B_DC_01_02_03))
        #expect(h.driver.info.advertisingTxPower == 4)
        #expect(h.driver.info.version?.manufacturer == 0xFFFF)
        #expect(h.driver.info.leBufferSize?.aclDataPacketLength == 251)
        #expect(h.driver.info.features == [.encryption])
        // The masks let advertising reports through, legacy and extended.
        #expect(h.controller.state.allowsLEEvent(.advertisingReport))
        #expect(h.controller.state.allowsLEEvent(.extendedAdvertisingReport))
        #expect(h.controller.state.eventMask.contains(.hardwareError))
    }

    @Test("a goal set before the controller is ready is applied once it is; the goal-reached callback fires")
    func goalBeforeReady() {
        let h = DriverHarness()
        var reached = 0
        h.driver.onGoalReached = { reached += 1 }
        let payload = h.rotate()
        h.gaen.scanning = true
        h.gaen.start()
        #expect(h.run(until: { h.controllerMatchesGoal }, within: .seconds(1)) != nil)
        #expect(h.gaen.broadcasting == payload)
        #expect(h.controller.state.advertisingData == payload.encoded())
        #expect(h.controller.state.randomAddress?.isNonResolvablePrivate == true)
        #expect(h.driver.state.isBroadcasting(h.driver.goal.broadcast!))
        #expect(reached >= 1)
        #expect(h.controller.violations.isEmpty)
        // GAEN advertising: 200–270 ms, non-connectable, from the random address.
        let parameters = h.controller.state.advertisingParameters
        #expect(parameters.intervalMin == BasebandSlots(milliseconds: 200))
        #expect(parameters.intervalMax == BasebandSlots(milliseconds: 270))
    }

    @Test("never has two commands outstanding: each waits for the previous one's Command Complete")
    func oneCommandAtATime() {
        let h = DriverHarness(latency: .milliseconds(3))
        h.startAndWaitUntilReady()
        for _ in 0..<20 {
            h.rotate()
            h.gaen.scanning.toggle()
            h.loop.run(for: .milliseconds(7))
        }
        h.loop.run(for: .seconds(1))
        #expect(h.controller.flowControlOverrunCount == 0)
        #expect(h.controllerMatchesGoal)
        #expect(h.controller.violations.isEmpty)
    }

    @Test("stopping broadcasting and scanning turns both off on the controller")
    func stopBroadcasting() {
        let h = DriverHarness()
        h.startAndWaitUntilReady()
        h.rotate()
        h.gaen.scanning = true
        #expect(h.run(until: { h.controllerMatchesGoal }, within: .seconds(1)) != nil)
        h.gaen.stopBroadcasting()
        h.gaen.scanning = false
        #expect(h.run(until: { h.controllerMatchesGoal }, within: .seconds(1)) != nil)
        #expect(!h.controller.state.isAdvertising && !h.controller.state.isScanning)
        #expect(h.gaen.broadcasting == nil)
    }

    /// Issue acceptance: a thousand rotations at random moments — during scans, during other commands,
    /// back to back — never make the driver break a strict rule or link two broadcasts.
    @Test("a thousand rotations at random moments: no strict-rule violation, no linkable broadcast, final state is the last goal",
          arguments: [(VirtualReportStyle.legacy, 0), (.extendedLikeBumble, 1), (.legacy, 3)])
    func thousandRotations(style: VirtualReportStyle, latencyMilliseconds: Int) {
        let h = DriverHarness(latency: .milliseconds(latencyMilliseconds), style: style, seed: 40 + UInt64(latencyMilliseconds))
        // Something to hear while scanning, so reports arrive in the middle of rotations.
        for i in 0..<5 {
            let beacon = h.freshPayload()
            h.radio.addBeacon(address: BDAddress(rawValue: 0x01_02_03_04_05_00 + UInt64(i)), data: beacon.encoded(),
                              at: RadioPosition(x: Double(i + 1), y: 0))
        }
        h.startAndWaitUntilReady()
        var random = SeededGenerator(seed: 99 + UInt64(latencyMilliseconds))
        var requested: [(address: BDAddress, data: [UInt8])] = []
        var rotations = 0
        var duringScan = 0, duringCommand = 0, backToBack = 0
        while rotations < 1_000 {
            // When the next rotation comes: at once (same callback), within a command's latency, or later.
            switch Int.random(in: 0..<10, using: &random) {
            case 0, 1: break
            case 2, 3, 4: h.loop.run(for: .microseconds(Int64.random(in: 0...3_000, using: &random)))
            default: h.loop.run(for: .milliseconds(Int64.random(in: 5...2_000, using: &random)))
            }
            if Int.random(in: 0..<4, using: &random) == 0 { h.gaen.scanning.toggle() }
            if h.controller.state.isScanning { duringScan += 1 }
            if h.tap.hostSent.count > h.controller.commandLog.count { duringCommand += 1 }
            let burst = Int.random(in: 0..<8, using: &random) == 0 ? 2 : 1
            if burst == 2 { backToBack += 1 }
            for _ in 0..<burst where rotations < 1_000 {
                h.rotate()
                rotations += 1
                requested.append((h.driver.goal.broadcast!.address, h.driver.goal.broadcast!.data))
            }
        }
        #expect(h.run(until: { h.controllerMatchesGoal }, within: .seconds(1)) != nil)

        #expect(h.controller.violations.isEmpty, "violations: \(h.controller.violations.prefix(5))")
        h.expectNoLinkableBroadcasts()
        // Everything on air was a pair the radio asked for, never a mix of an old and a new half.
        let asked = Set(requested.map { "\($0.address)/\($0.data)" })
        #expect(h.controller.advertisingHistory.allSatisfy { asked.contains("\($0.address)/\($0.data)") })
        #expect(h.controller.advertisingHistory.last?.address == requested.last?.address)
        #expect(h.controller.advertisingHistory.last?.data == requested.last?.data)
        // Nothing went wrong along the way: no timeout, no recovery, one command at a time.
        #expect(h.driver.counters.commandTimeouts == 0)
        #expect(h.driver.counters.commandsRejected == 0)
        #expect(h.driver.counters.initializations == 1)
        #expect(h.controller.flowControlOverrunCount == 0)
        // The schedule really exercised the interesting moments.
        #expect(duringScan > 100 && duringCommand > 100 && backToBack > 50,
                "scan \(duringScan), in flight \(duringCommand), back to back \(backToBack)")
        #expect(h.controller.advertisingHistory.count > 300, "rotations should reach the air")
        #expect(h.gaen.gaenReports > 0)
    }

    @Test("advertisements heard while scanning become GAEN reports; other data is counted and dropped")
    func reportsFromScan() throws {
        let h = DriverHarness()
        let phone = h.freshPayload()
        let phoneAddress = BDAddress(rawValue: 0x3A_00_00_00_00_01)
        h.radio.addBeacon(address: phoneAddress, data: phone.encoded(includingFlags: false),
                          at: RadioPosition(x: 2, y: 0), txPower: 0)
        h.radio.addBeacon(address: BDAddress(rawValue: 0x3A_00_00_00_00_02), data: [0x02, 0x01, 0x06, 0x03, 0x09, 0x41, 0x42],
                          at: RadioPosition(x: 2, y: 0))
        h.startAndWaitUntilReady()
        h.gaen.scanning = true
        h.loop.run(for: .seconds(5))
        let report = try #require(h.reports.first)
        #expect(report.payload == phone)
        #expect(report.address == phoneAddress)
        #expect(report.rssi.map { (-60 ... -30).contains(Int($0)) } == true)
        #expect(h.reports.allSatisfy { $0.payload == phone })
        // 250 ms interval for 5 s, minus the time scanning took to start.
        #expect((15...21).contains(h.gaen.gaenReports))
        #expect((15...21).contains(h.gaen.otherReports))
        #expect(h.driver.counters.advertisingReports == h.gaen.gaenReports + h.gaen.otherReports)
    }

    @Test("Bumble-style extended reports are read too, and its duplicate 'scan response' copy is not a second sighting")
    func bumbleStyleReports() throws {
        let h = DriverHarness(style: .extendedLikeBumble)
        let phone = h.freshPayload()
        h.radio.addBeacon(address: BDAddress(rawValue: 0x3A_00_00_00_00_01), data: phone.encoded(),
                          at: RadioPosition(x: 2, y: 0))
        h.startAndWaitUntilReady()
        h.gaen.scanning = true
        h.loop.run(for: .seconds(5))
        #expect(h.controller.deliveredReportCount > 0)
        #expect(h.reports.allSatisfy { $0.payload == phone })
        // Each advertisement arrives twice; one sighting each.
        #expect(h.gaen.gaenReports * 2 == h.controller.deliveredReportCount)
        #expect(h.reports.count == h.gaen.gaenReports)
        #expect(h.gaen.scanResponseReports == h.gaen.gaenReports)
        #expect(h.gaen.otherReports == 0)
    }

    @Test("on air only once the controller acknowledged it: asked for is not confirmed, a stop is not on air")
    func onAirIsWhatTheControllerConfirmed() throws {
        let h = DriverHarness()
        #expect(!h.gaen.isOnAir)
        h.startAndWaitUntilReady()
        h.rotate()
        #expect(!h.gaen.isOnAir, "asked for, not yet acknowledged")
        #expect(h.run(until: { h.gaen.isOnAir }, within: .seconds(1)) != nil)
        #expect(h.controllerMatchesGoal)
        h.gaen.stopBroadcasting()
        #expect(!h.gaen.isOnAir)
        h.rotate()
        #expect(h.run(until: { h.gaen.isOnAir }, within: .seconds(1)) != nil)
        // A reset throws the controller's state away: not on air until advertising is acknowledged again.
        h.driver.resetController()
        #expect(!h.gaen.isOnAir)
        #expect(h.run(until: { h.gaen.isOnAir }, within: .seconds(1)) != nil)
        #expect(h.controller.violations.isEmpty)
    }

    /// Issue acceptance: 200 beacons at 20 ms are 10,000 reports a second; commands must still be
    /// answered promptly and rotation must go on.
    @Test("a flood of advertising reports never starves command completions; rotation goes on without a timeout")
    func reportFlood() {
        let h = DriverHarness(latency: .milliseconds(1), seed: 5)
        for i in 0..<200 {
            let payload = h.freshPayload()
            h.radio.addBeacon(address: BDAddress(rawValue: 0x05_00_00_00_00_00 + UInt64(i)), data: payload.encoded(),
                              at: RadioPosition(x: Double(i % 20) * 0.5 + 1, y: Double(i / 20) * 0.5),
                              interval: .milliseconds(20))
        }
        h.startAndWaitUntilReady()
        h.gaen.scanning = true
        var rotations = 0
        var onAirAfterRotation: [Duration] = []
        for _ in 0..<40 {
            h.rotate()
            rotations += 1
            let took = h.run(until: { h.controllerMatchesGoal }, within: .seconds(1))
            if let took { onAirAfterRotation.append(took) }
            h.loop.run(for: .milliseconds(300))
        }
        #expect(h.driver.counters.commandTimeouts == 0)
        #expect(h.driver.counters.initializations == 1)
        #expect(h.controller.violations.isEmpty)
        #expect(onAirAfterRotation.count == rotations)
        // Six commands at 1 ms each: a rotation is on air well within 10 ms despite the flood.
        #expect(onAirAfterRotation.allSatisfy { $0 <= .milliseconds(10) }, "\(onAirAfterRotation)")
        // The round trip of every command, flood or not, is the controller's latency: the n-th Command
        // Complete answers the n-th command (one at a time), however many reports came in between.
        let commands = h.tap.hostSent.compactMap { entry in entry.packet.commandOpcode.map { (entry.time, $0) } }
        let completes = h.tap.controllerSent.compactMap { entry -> (MonotonicInstant, Opcode)? in
            guard case .commandComplete(let c)? = entry.packet.event else { return nil }
            return (entry.time, c.opcode)
        }
        #expect(completes.count == commands.count)
        let roundTrips = zip(commands, completes).map { command, complete in
            complete.1 == command.1 ? complete.0 - command.0 : .seconds(-1)
        }
        #expect(roundTrips.allSatisfy { $0 >= .zero && $0 <= .milliseconds(2) },
                "slowest \(roundTrips.max() ?? .zero), mismatched \(roundTrips.filter { $0 < .zero }.count)")
        // It really was a flood.
        #expect(h.gaen.gaenReports > 80_000, "\(h.gaen.gaenReports) reports")
    }
}
