import EventLoop

/// An in-process Bluetooth LE controller that answers HCI commands as a strict one does.
///
/// It exists so that the host driver and the whole agent can be tested without hardware, against
/// the rules real silicon enforces and Bumble does not (TESTING.md): LE Set Random Address is refused
/// while advertising or scanning, advertising from an unset random address is refused, LE events need
/// both event masks. Every rejected command is kept in `violations`, so a test can assert that a host
/// never attempted one; `advertisingHistory` keeps every (address, data) pair put on the air.
///
/// Timing: everything goes through the loop. A command is executed and answered `commandLatency`
/// after `send` (zero means "on a later turn"), never inside it; advertising reports arrive when the
/// `VirtualRadio` delivers an advertisement. With a `VirtualLoop` the whole exchange is deterministic.
///
/// Faults a host must survive: `goSilent()` (commands vanish unanswered, as on a hung Raspberry Pi
/// controller or Bumble given an unknown opcode), `sendHardwareError(code:)`, `dropLink()` (the host
/// transport fails; a new `makeHostTransport()` reconnects to the same controller and its state), and
/// `powerCycle()`.
public final class VirtualController: RadioAdvertiser {
    public let loop: any EventLoop
    public var configuration: VirtualControllerConfiguration
    /// What the host has set; Reset and `powerCycle()` return it to the power-on defaults.
    public private(set) var state = VirtualControllerState()
    /// Where this controller stands on its radio; simulations move it freely.
    public var position = RadioPosition.origin

    /// Every command executed, in order, with its status.
    public private(set) var commandLog: [CommandOutcome] = []
    /// The commands rejected with a non-success status: what a well-behaved host never causes.
    public private(set) var violations: [CommandOutcome] = []
    /// Each (address, data) pair this controller started broadcasting while advertising was enabled.
    public private(set) var advertisingHistory: [AdvertisingHistoryEntry] = []

    public private(set) var isSilent = false
    /// Commands that arrived while silent and vanished.
    public private(set) var swallowedCommandCount = 0
    /// Commands that arrived while an earlier one was still unanswered. Every Command Complete grants
    /// one command credit (Num_HCI_Command_Packets = 1), so a host that waits for its answers keeps
    /// this at zero.
    public private(set) var flowControlOverrunCount = 0
    /// Host packets that were not commands, or too short to carry an opcode: ignored.
    public private(set) var ignoredPacketCount = 0
    /// Events the event masks kept from the host (advertising reports, hardware errors).
    public private(set) var maskedEventCount = 0
    /// Events with no started, live link to go to.
    public private(set) var undeliveredEventCount = 0
    /// Advertising report events delivered to the host (an advertisement reported twice counts twice).
    public private(set) var deliveredReportCount = 0

    /// The radio it is on; `VirtualRadio.remove` (or `removeAll`) lets go of it.
    var radio: VirtualRadio?
    private var link: VirtualHostLink?
    private var commandsInFlight = 0
    /// Bumped by a power cycle, so that commands received before it are forgotten, not executed.
    private var powerEpoch = 0

    public init(loop: any EventLoop, configuration: VirtualControllerConfiguration) {
        self.loop = loop
        self.configuration = configuration
    }

    /// How advertising reports are laid out; see `VirtualReportStyle`.
    public var reportStyle: VirtualReportStyle {
        get { configuration.reportStyle }
        set { configuration.reportStyle = newValue }
    }

    /// Whether a host link is live (made and neither stopped nor dropped).
    public var hasLiveLink: Bool { link != nil }

    // MARK: Host link

    /// The host's side of a new link. A link that was still live is cut, and its host told so, as
    /// when a second process takes over a device.
    public func makeHostTransport() -> any HCITransport {
        if let previous = link {
            loop.schedule(after: .zero) { previous.fail(.closed("virtual controller: another host link replaced this one")) }
        }
        let fresh = VirtualHostLink(controller: self)
        link = fresh
        return fresh
    }

    func linkClosed(_ closed: VirtualHostLink) {
        if link === closed { link = nil }
    }

    func receive(_ packet: H4Packet, from sender: VirtualHostLink) {
        guard sender === link else { return }
        guard case .command(let bytes) = packet else {
            ignoredPacketCount += 1
            return
        }
        guard !isSilent else {
            swallowedCommandCount += 1
            return
        }
        if commandsInFlight > 0 { flowControlOverrunCount += 1 }
        commandsInFlight += 1
        let epoch = powerEpoch
        loop.schedule(after: configuration.commandLatency) { [self] in
            guard epoch == self.powerEpoch else { return }
            self.commandsInFlight -= 1
            self.execute(bytes)
        }
    }

    // MARK: Commands

    private func execute(_ bytes: [UInt8]) {
        let answer: CommandComplete
        do {
            let packet = try HCICommandPacket(decoding: bytes)
            do {
                answer = state.execute(try packet.decoded(), at: loop.now, configuration: configuration)
            } catch {
                answer = .status(.invalidParameters, for: packet.opcode)
            }
        } catch {
            // The length byte disagrees with the bytes; the opcode is still readable if present.
            guard bytes.count >= 2 else {
                ignoredPacketCount += 1
                return
            }
            answer = .status(.invalidParameters, for: Opcode(rawValue: UInt16(bytes[0]) | UInt16(bytes[1]) << 8))
        }
        let outcome = CommandOutcome(time: loop.now, opcode: answer.opcode, status: answer.status ?? .success)
        commandLog.append(outcome)
        if outcome.isRejected { violations.append(outcome) }
        stateDidChange()
        emit(.commandComplete(answer))
    }

    /// Keeps the advertising history and the radio's schedule in step with the state.
    private func stateDidChange() {
        if let onAir = transmission {
            let last = advertisingHistory.last
            if last?.address != onAir.address || last?.data != onAir.data {
                advertisingHistory.append(AdvertisingHistoryEntry(time: loop.now, address: onAir.address, data: onAir.data))
            }
        }
        radio?.advertisersChanged()
    }

    // MARK: Events

    @discardableResult
    private func emit(_ event: HCIEvent) -> Bool {
        guard let link, link.deliver(H4Packet(event)) else {
            undeliveredEventCount += 1
            return false
        }
        return true
    }

    // MARK: Radio

    /// What this controller puts on the air: only while advertising is enabled with data. The
    /// interval is Advertising_Interval_Min, the choice most controllers make.
    var identity: ObjectIdentifier { ObjectIdentifier(self) }

    var transmission: AirTransmission? {
        guard state.isAdvertising, !state.advertisingData.isEmpty,
            let (address, addressType) = state.ownAddress(
                for: state.advertisingParameters.ownAddressType, publicAddress: configuration.publicAddress)
        else { return nil }
        return AirTransmission(
            address: address, addressType: addressType, pdu: state.advertisingParameters.type,
            data: state.advertisingData, txPower: configuration.txPower,
            interval: .microseconds(state.advertisingParameters.intervalMin.microseconds))
    }

    /// Whether the receiver is listening at `instant`: scanning, and inside a scan window (each
    /// window opens every LE_Scan_Interval from the moment scanning was enabled).
    func isListening(at instant: MonotonicInstant) -> Bool {
        guard state.isScanning else { return false }
        let interval = Int64(state.scanParameters.interval.microseconds) * 1000
        let window = Int64(state.scanParameters.window.microseconds) * 1000
        if window >= interval { return true }
        let elapsed = (instant - state.scanStartedAt).wholeNanoseconds
        return elapsed >= 0 && elapsed % interval < window
    }

    /// An advertisement the radio brought in at `rssi` dBm: reported to the host if the masks allow.
    func hear(_ advertisement: AirTransmission, rssi: Int8) {
        let subevent: LEEventMask = reportStyle == .legacy ? .advertisingReport : .extendedAdvertisingReport
        guard state.allowsLEEvent(subevent) else {
            maskedEventCount += 1
            return
        }
        if state.filtersDuplicates {
            guard state.reportedAdvertisers.insert(advertisement.address).inserted else { return }
        }
        let addressType: ReportedAddressType = advertisement.addressType == .public ? .public : .random
        switch reportStyle {
        case .legacy:
            let report = LEAdvertisingReport.Report(
                eventType: LegacyAdvertisingEventType(reporting: advertisement.pdu), addressType: addressType,
                address: advertisement.address, data: advertisement.data, rssi: rssi)
            if emit(.leAdvertisingReport(LEAdvertisingReport(reports: [report]))) { deliveredReportCount += 1 }
        case .extendedLikeBumble:
            // Bumble sends the advertisement, then the same data again as a "scan response", each in
            // its own event, with these fixed fields whatever the PDU was.
            for eventType: UInt16 in [0x0001, 0x0008] {
                let report = LEExtendedAdvertisingReport.Report(
                    eventType: ExtendedAdvertisingEventType(rawValue: eventType), addressType: addressType,
                    address: advertisement.address, primaryPHY: .le1M, secondaryPHY: .le1M, advertisingSID: 0,
                    txPower: 0, rssi: rssi, data: advertisement.data)
                if emit(.leExtendedAdvertisingReport(LEExtendedAdvertisingReport(reports: [report]))) {
                    deliveredReportCount += 1
                }
            }
        }
    }

    // MARK: Fault injection

    /// From now on commands vanish without an answer and without effect, until `resumeAnswering()`
    /// or `powerCycle()`. The radio side keeps running as configured.
    public func goSilent() {
        isSilent = true
    }

    public func resumeAnswering() {
        isSilent = false
    }

    /// Sends a Hardware Error event after the command latency, if the event mask allows it (it does
    /// by default; the bit is among those Reset restores).
    public func sendHardwareError(code: UInt8) {
        loop.schedule(after: configuration.commandLatency) { [self] in
            guard self.state.eventMask.contains(.hardwareError) else {
                self.maskedEventCount += 1
                return
            }
            self.emit(.hardwareError(code: code))
        }
    }

    /// Cuts the host link as a pulled USB cable or a closed socket would: the host transport's
    /// `onFailure` fires on the next turn of the loop. The controller keeps its state (and keeps
    /// advertising, if it was); a host reconnects with `makeHostTransport()`.
    public func dropLink() {
        guard let dropped = link else { return }
        link = nil
        loop.schedule(after: .zero) { dropped.fail(.closed("virtual controller: link dropped")) }
    }

    /// Power off and on: the state returns to the power-on defaults, commands not yet executed are
    /// lost, and a silent controller answers again. The link stays up (a UART does); combine with
    /// `dropLink()` for a USB dongle.
    public func powerCycle() {
        powerEpoch += 1
        commandsInFlight = 0
        isSilent = false
        state = VirtualControllerState()
        stateDidChange()
    }
}

extension LegacyAdvertisingEventType {
    /// The report event type for an advertisement sent as `pdu`.
    init(reporting pdu: AdvertisingType) {
        switch pdu {
        case .connectableUndirected: self = .connectableUndirected
        case .connectableDirectedHighDuty, .connectableDirectedLowDuty: self = .connectableDirected
        case .scannableUndirected: self = .scannableUndirected
        case .nonConnectableUndirected: self = .nonConnectableUndirected
        }
    }
}
