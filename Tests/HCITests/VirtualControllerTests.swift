import EventLoop
import HCI
import Testing

// MARK: - A raw HCI host for driving virtual controllers

/// A host that speaks raw HCI to a virtual controller and keeps everything the controller sends.
///
/// Deliberately dumb (no driver logic): the tests below are about what the controller does with
/// exactly the packets they write.
final class VirtualTestHost {
    let loop: VirtualLoop
    let controller: VirtualController
    private(set) var transport: any HCITransport
    private(set) var events: [HCIEvent] = []
    private(set) var failures: [TransportError] = []

    init(_ controller: VirtualController, loop: VirtualLoop) {
        self.loop = loop
        self.controller = controller
        transport = controller.makeHostTransport()
        start()
    }

    /// Opens a new link, as a host reconnecting after a failure does.
    func reconnect() {
        transport = controller.makeHostTransport()
        start()
    }

    private func start() {
        transport.start(
            onPacket: { [weak self] packet in
                guard case .event(let bytes) = packet else { return }
                // A controller that sent undecodable events would be a bug in it: let the test see it.
                guard let event = try? HCIEvent(decoding: bytes) else { fatalError("undecodable event \(bytes)") }
                self?.events.append(event)
            },
            onFailure: { [weak self] error in self?.failures.append(error) })
    }

    /// Sends `command`, lets the controller answer, and returns the status of its Command Complete
    /// (nil when nothing answered).
    @discardableResult
    func send(_ command: some HCICommand) -> HCIStatus? {
        send(command.packet)
    }

    @discardableResult
    func send(_ packet: HCICommandPacket) -> HCIStatus? {
        sendBytes(packet.encoded(), opcode: packet.opcode)
    }

    /// Sends bytes as a command packet whatever they hold: for malformed headers.
    @discardableResult
    func sendBytes(_ bytes: [UInt8], opcode: Opcode) -> HCIStatus? {
        let before = events.count
        transport.send(.command(bytes))
        loop.run(for: .milliseconds(1))
        return events[before...].compactMap(\.commandComplete).last { $0.opcode == opcode }?.status
    }

    var commandCompletes: [CommandComplete] { events.compactMap(\.commandComplete) }
    var advertisements: [ReceivedAdvertisement] { events.flatMap(\.advertisements) }
    var reportEvents: [HCIEvent] { events.filter { !$0.advertisements.isEmpty } }

    /// The setup a GAEN scanner does: both masks, passive scan parameters, scan enable.
    func startScanning(window: BasebandSlots = BasebandSlots(rawValue: 0x0060), filterDuplicates: Bool = false) {
        expectSuccess(send(SetEventMaskCommand(mask: EventMask.controllerDefault.union(.leMeta))))
        expectSuccess(send(LESetEventMaskCommand(mask: [.advertisingReport, .extendedAdvertisingReport])))
        expectSuccess(send(LESetScanParametersCommand(
            interval: BasebandSlots(rawValue: 0x0060), window: window, ownAddressType: .random)))
        expectSuccess(send(LESetScanEnableCommand(isEnabled: true, filterDuplicates: filterDuplicates)))
    }

    /// The sequence a GAEN advertiser uses: address, parameters, data, enable.
    func startAdvertising(address: BDAddress, data: [UInt8], interval: BasebandSlots = BasebandSlots(milliseconds: 250)) {
        expectSuccess(send(LESetRandomAddressCommand(address: address)))
        expectSuccess(send(LESetAdvertisingParametersCommand(
            intervalMin: interval, intervalMax: BasebandSlots(rawValue: interval.rawValue + 16),
            type: .nonConnectableUndirected, ownAddressType: .random)))
        expectSuccess(send(LESetAdvertisingDataCommand(data: data)))
        expectSuccess(send(LESetAdvertisingEnableCommand(isEnabled: true)))
    }

    private func expectSuccess(_ status: HCIStatus?, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(status == .success, sourceLocation: sourceLocation)
    }
}

extension HCIEvent {
    var commandComplete: CommandComplete? {
        if case .commandComplete(let complete) = self { return complete }
        return nil
    }
}

let virtualPublicAddress = BDAddress(rawValue: 0x00_1B_DC_0A_0B_0C)
let virtualNRPA = BDAddress(rawValue: 0x12_34_56_78_9A_BC)

func makeVirtualController(
    loop: VirtualLoop, latency: Duration = .zero, style: VirtualReportStyle = .legacy
) -> VirtualController {
    VirtualController(
        loop: loop,
        configuration: VirtualControllerConfiguration(
            publicAddress: virtualPublicAddress, txPower: 8, commandLatency: latency, reportStyle: style))
}

// MARK: - Commands and answers

@Suite("Virtual controller")
struct VirtualControllerTests {
    @Test("answers the informational commands with its configuration, one command credit each")
    func informationalCommands() throws {
        let loop = VirtualLoop()
        let host = VirtualTestHost(makeVirtualController(loop: loop), loop: loop)

        host.send(ReadBDAddrCommand())
        host.send(ReadLocalVersionInformationCommand())
        host.send(LEReadBufferSizeCommand())
        host.send(LEReadLocalSupportedFeaturesCommand())
        host.send(LEReadAdvertisingPhysicalChannelTxPowerCommand())

        let answers = host.commandCompletes
        try #require(answers.count == 5)
        #expect(try answers[0].returnParameters(for: ReadBDAddrCommand.self).address == virtualPublicAddress)
        #expect(try answers[1].returnParameters(for: ReadLocalVersionInformationCommand.self).manufacturer == 0xFFFF)
        #expect(try answers[2].returnParameters(for: LEReadBufferSizeCommand.self).aclDataPacketLength == 251)
        #expect(try answers[3].returnParameters(for: LEReadLocalSupportedFeaturesCommand.self).features == [.encryption])
        #expect(try answers[4].returnParameters(for: LEReadAdvertisingPhysicalChannelTxPowerCommand.self).txPower == 8)
        #expect(answers.allSatisfy { $0.numCommandPackets == 1 && $0.status == .success })
        #expect(host.controller.violations.isEmpty)
        #expect(host.controller.commandLog.count == 5)
    }

    @Test("answers on a later turn of the loop, never inside send")
    func answersAsynchronously() {
        let loop = VirtualLoop()
        let controller = makeVirtualController(loop: loop)
        let transport = controller.makeHostTransport()
        var received = 0
        transport.start(onPacket: { _ in received += 1 }, onFailure: { _ in })

        transport.send(H4Packet(ResetCommand()))
        #expect(received == 0)
        #expect(controller.commandLog.isEmpty)
        _ = loop.runUntilIdle()
        #expect(received == 1)
        #expect(loop.now == .zero)
    }

    @Test("a configured latency delays execution and answer")
    func latency() {
        let loop = VirtualLoop()
        let controller = makeVirtualController(loop: loop, latency: .milliseconds(5))
        let transport = controller.makeHostTransport()
        var answeredAt: MonotonicInstant?
        transport.start(onPacket: { _ in answeredAt = loop.now }, onFailure: { _ in })

        transport.send(H4Packet(ReadBDAddrCommand()))
        loop.run(for: .milliseconds(4))
        #expect(answeredAt == nil)
        loop.run(for: .milliseconds(2))
        #expect(answeredAt == .zero + .milliseconds(5))
        #expect(controller.commandLog.first?.time == .zero + .milliseconds(5))
    }

    @Test("an unknown opcode is answered with Command Complete 0x01 and recorded")
    func unknownOpcode() throws {
        let loop = VirtualLoop()
        let host = VirtualTestHost(makeVirtualController(loop: loop), loop: loop)
        loop.run(for: .seconds(3))

        let vendor = Opcode(ogf: 0x3F, ocf: 0x0001)
        #expect(host.send(HCICommandPacket(opcode: vendor, parameters: [1, 2, 3])) == .unknownCommand)
        let complete = try #require(host.commandCompletes.last)
        #expect(complete.returnParameters == [0x01])
        #expect(complete.numCommandPackets == 1)
        #expect(host.controller.violations == [
            CommandOutcome(time: .zero + .seconds(3), opcode: vendor, status: .unknownCommand)
        ])
    }

    @Test(
        "malformed parameters are answered with 0x12",
        arguments: [
            // Set Event Mask with seven bytes instead of eight.
            HCICommandPacket(opcode: SetEventMaskCommand.opcode, parameters: [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x1F, 0x00]),
            // LE Set Advertising Enable with the reserved value 2.
            HCICommandPacket(opcode: LESetAdvertisingEnableCommand.opcode, parameters: [0x02]),
            // Reset with a parameter byte.
            HCICommandPacket(opcode: ResetCommand.opcode, parameters: [0x00]),
            // LE Set Advertising Data claiming 32 significant bytes.
            HCICommandPacket(opcode: LESetAdvertisingDataCommand.opcode, parameters: [32] + Array(repeating: 0, count: 31)),
            // LE Set Scan Parameters with a window longer than the interval.
            HCICommandPacket(opcode: LESetScanParametersCommand.opcode, parameters: [0x00, 0x10, 0x00, 0x20, 0x00, 0x01, 0x00]),
        ])
    func malformedParameters(packet: HCICommandPacket) {
        let loop = VirtualLoop()
        let host = VirtualTestHost(makeVirtualController(loop: loop), loop: loop)
        let stateBefore = host.controller.state

        #expect(host.send(packet) == .invalidParameters)
        #expect(host.controller.violations.map(\.status) == [.invalidParameters])
        #expect(host.controller.violations.map(\.opcode) == [packet.opcode])
        #expect(host.controller.state == stateBefore)
    }

    @Test("a header whose length disagrees with the bytes is answered with 0x12")
    func lengthMismatch() {
        let loop = VirtualLoop()
        let host = VirtualTestHost(makeVirtualController(loop: loop), loop: loop)
        // LE Set Random Address declaring 6 parameter bytes, carrying 5.
        let status = host.sendBytes([0x05, 0x20, 0x06, 1, 2, 3, 4, 5], opcode: LESetRandomAddressCommand.opcode)
        #expect(status == .invalidParameters)
        #expect(host.controller.state.randomAddress == nil)
    }

    @Test("advertising intervals outside 20 ms…10.24 s, or min above max, are rejected with 0x12")
    func advertisingIntervalRange() {
        let loop = VirtualLoop()
        let host = VirtualTestHost(makeVirtualController(loop: loop), loop: loop)
        func parameters(_ min: UInt16, _ max: UInt16) -> LESetAdvertisingParametersCommand {
            LESetAdvertisingParametersCommand(
                intervalMin: BasebandSlots(rawValue: min), intervalMax: BasebandSlots(rawValue: max),
                type: .nonConnectableUndirected, ownAddressType: .random)
        }
        #expect(host.send(parameters(0x001F, 0x0100)) == .invalidParameters)
        #expect(host.send(parameters(0x0100, 0x4001)) == .invalidParameters)
        #expect(host.send(parameters(0x01B0, 0x0140)) == .invalidParameters)
        #expect(host.send(parameters(0x0140, 0x01B0)) == .success)
        #expect(host.controller.violations.count == 3)
        #expect(host.controller.state.advertisingParameters.intervalMin.rawValue == 0x0140)
    }

    // MARK: Strict rules

    @Test("LE Set Random Address is disallowed (0x0C) while advertising")
    func randomAddressWhileAdvertising() {
        let loop = VirtualLoop()
        let host = VirtualTestHost(makeVirtualController(loop: loop), loop: loop)
        host.startAdvertising(address: virtualNRPA, data: gaenData)

        let next = BDAddress(rawValue: 0x01_02_03_04_05_06)
        #expect(host.send(LESetRandomAddressCommand(address: next)) == .commandDisallowed)
        #expect(host.controller.state.randomAddress == virtualNRPA)
        #expect(host.controller.violations.map(\.opcode) == [LESetRandomAddressCommand.opcode])

        #expect(host.send(LESetAdvertisingEnableCommand(isEnabled: false)) == .success)
        #expect(host.send(LESetRandomAddressCommand(address: next)) == .success)
        #expect(host.controller.state.randomAddress == next)
    }

    @Test("LE Set Random Address is disallowed (0x0C) while scanning")
    func randomAddressWhileScanning() {
        let loop = VirtualLoop()
        let host = VirtualTestHost(makeVirtualController(loop: loop), loop: loop)
        host.startScanning()

        #expect(host.send(LESetRandomAddressCommand(address: virtualNRPA)) == .commandDisallowed)
        #expect(host.send(LESetScanEnableCommand(isEnabled: false)) == .success)
        #expect(host.send(LESetRandomAddressCommand(address: virtualNRPA)) == .success)
        #expect(host.controller.violations.map(\.status) == [.commandDisallowed])
    }

    @Test("LE Set Advertising Parameters is disallowed (0x0C) while advertising")
    func advertisingParametersWhileAdvertising() {
        let loop = VirtualLoop()
        let host = VirtualTestHost(makeVirtualController(loop: loop), loop: loop)
        host.startAdvertising(address: virtualNRPA, data: gaenData)
        let changed = LESetAdvertisingParametersCommand(
            intervalMin: BasebandSlots(milliseconds: 100), intervalMax: BasebandSlots(milliseconds: 100),
            type: .nonConnectableUndirected, ownAddressType: .random)

        #expect(host.send(changed) == .commandDisallowed)
        #expect(host.controller.state.advertisingParameters.intervalMin == BasebandSlots(milliseconds: 250))
        // Advertising data may change while advertising.
        #expect(host.send(LESetAdvertisingDataCommand(data: gaenDataWithoutFlags)) == .success)
    }

    @Test("LE Set Scan Parameters is disallowed (0x0C) while scanning")
    func scanParametersWhileScanning() {
        let loop = VirtualLoop()
        let host = VirtualTestHost(makeVirtualController(loop: loop), loop: loop)
        host.startScanning()
        let changed = LESetScanParametersCommand(
            interval: BasebandSlots(rawValue: 0x0100), window: BasebandSlots(rawValue: 0x0010), ownAddressType: .random)

        #expect(host.send(changed) == .commandDisallowed)
        #expect(host.send(LESetScanEnableCommand(isEnabled: false)) == .success)
        #expect(host.send(changed) == .success)
        #expect(host.controller.state.scanParameters == changed)
    }

    @Test("advertising from a random address that was never set is rejected with 0x12")
    func advertisingWithoutRandomAddress() {
        let loop = VirtualLoop()
        let host = VirtualTestHost(makeVirtualController(loop: loop), loop: loop)
        host.send(LESetAdvertisingParametersCommand(
            intervalMin: BasebandSlots(milliseconds: 250), intervalMax: BasebandSlots(milliseconds: 260),
            type: .nonConnectableUndirected, ownAddressType: .random))
        host.send(LESetAdvertisingDataCommand(data: gaenData))

        #expect(host.send(LESetAdvertisingEnableCommand(isEnabled: true)) == .invalidParameters)
        #expect(!host.controller.state.isAdvertising)
        #expect(host.send(LESetRandomAddressCommand(address: virtualNRPA)) == .success)
        #expect(host.send(LESetAdvertisingEnableCommand(isEnabled: true)) == .success)
        #expect(host.controller.state.isAdvertising)
        #expect(host.controller.violations.map(\.opcode) == [LESetAdvertisingEnableCommand.opcode])
    }

    @Test("every Command Complete grants exactly one command credit")
    func oneCreditPerAnswer() {
        let loop = VirtualLoop()
        let host = VirtualTestHost(makeVirtualController(loop: loop), loop: loop)
        host.startAdvertising(address: virtualNRPA, data: gaenData)
        host.send(LESetRandomAddressCommand(address: virtualNRPA))
        host.send(HCICommandPacket(opcode: Opcode(ogf: 0x08, ocf: 0x0036), parameters: []))
        host.send(ResetCommand())

        #expect(host.commandCompletes.count == 7)
        #expect(host.commandCompletes.allSatisfy { $0.numCommandPackets == 1 })
        #expect(host.controller.flowControlOverrunCount == 0)
    }

    @Test("a second command before the first is answered is counted as a flow-control overrun")
    func flowControlOverrun() {
        let loop = VirtualLoop()
        let controller = makeVirtualController(loop: loop)
        let transport = controller.makeHostTransport()
        transport.start(onPacket: { _ in }, onFailure: { _ in })
        transport.send(H4Packet(ResetCommand()))
        transport.send(H4Packet(ReadBDAddrCommand()))
        _ = loop.runUntilIdle()

        #expect(controller.flowControlOverrunCount == 1)
        #expect(controller.commandLog.count == 2)
    }

    @Test("Reset returns masks, addresses, parameters, data and enables to the power-on state")
    func resetClearsState() {
        let loop = VirtualLoop()
        let host = VirtualTestHost(makeVirtualController(loop: loop), loop: loop)
        host.startAdvertising(address: virtualNRPA, data: gaenData)
        host.startScanning()
        #expect(host.controller.state != VirtualControllerState())

        #expect(host.send(ResetCommand()) == .success)
        let state = host.controller.state
        #expect(state == VirtualControllerState())
        #expect(state.eventMask == .controllerDefault)
        #expect(state.leEventMask == .controllerDefault)
        #expect(state.randomAddress == nil)
        #expect(state.advertisingData.isEmpty)
        #expect(!state.isAdvertising && !state.isScanning)
        #expect(state.advertisingParameters.ownAddressType == .public)
        // The default mask has no LE Meta bit: after Reset no advertising report could reach the host.
        #expect(!state.allowsLEEvent(.advertisingReport))
        // Nothing is enabled any more, so the address may change again.
        #expect(host.send(LESetRandomAddressCommand(address: virtualNRPA)) == .success)
    }

    // MARK: Advertising history

    @Test("the advertising history keeps each (address, data) pair put on the air")
    func advertisingHistory() {
        let loop = VirtualLoop()
        let host = VirtualTestHost(makeVirtualController(loop: loop), loop: loop)
        host.send(LESetAdvertisingDataCommand(data: gaenData))
        #expect(host.controller.advertisingHistory.isEmpty, "nothing is on the air before enabling")

        host.startAdvertising(address: virtualNRPA, data: gaenData)
        loop.run(for: .seconds(60))
        host.send(LESetAdvertisingDataCommand(data: gaenDataWithoutFlags))
        host.send(LESetAdvertisingDataCommand(data: gaenDataWithoutFlags))  // no change, no entry
        host.send(LESetAdvertisingEnableCommand(isEnabled: false))
        let second = BDAddress(rawValue: 0x0A_0B_0C_0D_0E_0F)
        host.send(LESetRandomAddressCommand(address: second))
        host.send(LESetAdvertisingEnableCommand(isEnabled: true))

        let history = host.controller.advertisingHistory
        #expect(history.map(\.address) == [virtualNRPA, virtualNRPA, second])
        #expect(history.map(\.data) == [gaenData, gaenDataWithoutFlags, gaenDataWithoutFlags])
        #expect(history[1].time > history[0].time + .seconds(59))
    }

    // MARK: Faults

    @Test("a silent controller swallows commands until it resumes answering")
    func silentMode() {
        let loop = VirtualLoop()
        let host = VirtualTestHost(makeVirtualController(loop: loop), loop: loop)
        host.controller.goSilent()

        #expect(host.send(LESetRandomAddressCommand(address: virtualNRPA)) == nil)
        #expect(host.send(ResetCommand()) == nil)
        loop.run(for: .seconds(10))
        #expect(host.events.isEmpty)
        #expect(host.controller.swallowedCommandCount == 2)
        #expect(host.controller.state.randomAddress == nil, "swallowed commands have no effect")

        host.controller.resumeAnswering()
        #expect(host.send(ResetCommand()) == .success)
    }

    @Test("a Hardware Error event reaches the host, unless the event mask excludes it")
    func hardwareError() {
        let loop = VirtualLoop()
        let host = VirtualTestHost(makeVirtualController(loop: loop), loop: loop)
        host.controller.sendHardwareError(code: 0x42)
        #expect(host.events.isEmpty, "delivered on the loop, not inside the call")
        loop.run(for: .milliseconds(1))
        #expect(host.events == [.hardwareError(code: 0x42)])

        host.send(SetEventMaskCommand(mask: [.leMeta]))
        host.controller.sendHardwareError(code: 0x43)
        loop.run(for: .milliseconds(1))
        #expect(!host.events.contains(.hardwareError(code: 0x43)))
        #expect(host.controller.maskedEventCount == 1)
    }

    @Test("a dropped link fails the host transport; a new link finds the controller as it was")
    func dropLink() throws {
        let loop = VirtualLoop()
        let host = VirtualTestHost(makeVirtualController(loop: loop), loop: loop)
        host.startAdvertising(address: virtualNRPA, data: gaenData)

        host.controller.dropLink()
        #expect(host.failures.isEmpty, "reported on the loop, not inside dropLink")
        #expect(!host.controller.hasLiveLink)
        loop.run(for: .milliseconds(1))
        #expect(host.failures.count == 1)
        let answered = host.events.count
        #expect(host.send(ReadBDAddrCommand()) == nil, "a dead link carries nothing")
        #expect(host.events.count == answered)

        host.reconnect()
        #expect(host.controller.hasLiveLink)
        #expect(host.send(ReadBDAddrCommand()) == .success)
        #expect(host.controller.state.isAdvertising, "the controller kept its state across the drop")
        #expect(host.failures.count == 1)
    }

    @Test("a new link replaces a live one, whose host is told")
    func replacedLink() {
        let loop = VirtualLoop()
        let controller = makeVirtualController(loop: loop)
        let first = VirtualTestHost(controller, loop: loop)
        let second = VirtualTestHost(controller, loop: loop)
        loop.run(for: .milliseconds(1))

        #expect(first.failures.count == 1)
        #expect(second.failures.isEmpty)
        #expect(first.send(ResetCommand()) == nil)
        #expect(second.send(ResetCommand()) == .success)
    }

    @Test("a stopped link gets no more callbacks, and the controller waits for a new one")
    func stoppedLink() {
        let loop = VirtualLoop()
        let host = VirtualTestHost(makeVirtualController(loop: loop), loop: loop)
        host.transport.send(H4Packet(ResetCommand()))
        host.transport.stop()
        loop.run(for: .milliseconds(1))
        #expect(host.events.isEmpty)
        #expect(host.controller.undeliveredEventCount == 1)
        #expect(!host.controller.hasLiveLink)
    }

    @Test("a power cycle clears the state, forgets queued commands and ends silence")
    func powerCycle() {
        let loop = VirtualLoop()
        let host = VirtualTestHost(makeVirtualController(loop: loop, latency: .milliseconds(5)), loop: loop)
        host.transport.send(H4Packet(LESetRandomAddressCommand(address: virtualNRPA)))
        loop.run(for: .milliseconds(10))
        #expect(host.controller.state.randomAddress == virtualNRPA)

        host.transport.send(H4Packet(LESetEventMaskCommand(mask: [])))
        host.controller.goSilent()
        host.controller.powerCycle()
        loop.run(for: .milliseconds(10))
        #expect(host.controller.state == VirtualControllerState())
        #expect(host.controller.commandLog.count == 1, "the queued command died with the power")
        #expect(!host.controller.isSilent)
        #expect(host.controller.hasLiveLink)
    }
}
