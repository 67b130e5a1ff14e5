import EventLoop

/// Drives one LE controller over an `HCITransport`: initialises it, keeps its advertising and scanning
/// equal to `goal`, and recovers from everything a cheap controller does over months.
///
/// Recovery ladder: a command unanswered for `commandTimeout` → reset and re-initialise on the same
/// link; a second consecutive timeout, a rejected initialisation or a dead transport → close the link
/// and reconnect after a backoff (250 ms doubling to 30 s; to at most 1 s while the transport cannot be
/// opened at all, so an adapter that returns or is plugged in is noticed at once). Hardware Error →
/// re-initialise. A controller
/// that keeps faulting or refusing (three times before the goal is reached again) also goes to the
/// backoff, and the backoff restarts only once the goal is reached: never a tight reset loop. After every
/// (re)initialisation the host's model of the controller starts empty and `RadioPlan` re-applies the goal,
/// so advertising and scanning resume by themselves. Nothing here blocks: every wait is a loop timer.
public final class ControllerDriver {
    public enum Phase: Equatable, Sendable, CustomStringConvertible {
        case stopped, initializing, ready, waitingToReconnect

        /// The case's name, as `status` and `hci` show it (spelled out: the board build cannot reflect it).
        public var description: String {
            switch self {
            case .stopped: "stopped"
            case .initializing: "initializing"
            case .ready: "ready"
            case .waitingToReconnect: "waitingToReconnect"
            }
        }
    }

    public var goal = RadioGoal() {
        didSet { if goal != oldValue { reconcile() } }
    }
    public private(set) var state = RadioState()
    public private(set) var phase = Phase.stopped
    public private(set) var info = ControllerInfo()
    public private(set) var counters = DriverCounters()
    /// When the controller last sent an event (any event: it is alive); nil until it has.
    public private(set) var lastEventAt: MonotonicInstant?
    /// The last thing that went wrong with the controller, and when (for `status`): nil until then.
    public private(set) var lastProblem: (text: String, at: MonotonicInstant)?
    /// Every advertisement a scan heard, with the loop time it arrived.
    public var onAdvertisement: (ReceivedAdvertisement, MonotonicInstant) -> Void = { _, _ in }
    /// Called after every completed (re)initialisation.
    public var onReady: () -> Void = {}
    /// Called whenever the controller reaches the goal (e.g. a new broadcast is on air).
    public var onGoalReached: () -> Void = {}

    private let loop: any EventLoop
    private let makeTransport: () -> any HCITransport
    private let settings: DriverSettings
    private let log: Logger
    private var transport: (any HCITransport)?
    /// Bumped per link: callbacks of a transport that has since been replaced compare it.
    private var linkGeneration = 0
    private let commands: CommandQueue
    private var consecutiveTimeouts = 0
    private var reconnectDelay: Duration
    private var reconnectTimer: TimerHandle?
    /// When the controller was lost (link failure), until it is ready again: for the log line saying so.
    private var lostAt: MonotonicInstant?
    /// `whenGoalReached` callers, told once the controller's state equals the goal.
    private var goalWaiters: [() -> Void] = []
    private var stepInFlight = false
    /// Essential commands refused since the goal was last reached: re-initialising in between does not
    /// clear it, or a controller refusing the same step every time would be reset in a tight loop.
    private var rejectionsInARow = 0
    /// Hardware Errors since the goal was last reached; the third goes to the reconnect ladder.
    private var hardwareErrorsSinceGoal = 0

    public init(loop: any EventLoop, settings: DriverSettings = DriverSettings(), log: Logger,
                makeTransport: @escaping () -> any HCITransport) {
        self.loop = loop
        self.settings = settings
        self.log = log
        self.makeTransport = makeTransport
        reconnectDelay = settings.reconnectInitialDelay
        commands = CommandQueue(loop: loop, timeout: settings.commandTimeout)
        commands.onCreditAssumed = { [log, timeout = settings.commandTimeout] in
            log.warn("controller granted no command credit for \(timeout.humanReadable): assuming one")
        }
    }

    /// Connects and initialises the controller. From here until `stop` the command queue, the transport and
    /// the loop's timers hold the driver (strongly: the board build has no weak references); `stop` cancels
    /// and unhooks all of them, so a stopped driver is held by its owners alone.
    public func start() {
        guard phase == .stopped else { return }
        commands.transmit = { packet in
            self.counters.commandsSent += 1
            self.transport?.send(.command(packet.encoded()))
        }
        commands.onTimeout = { opcode in self.commandTimedOut(opcode) }
        connect()
    }

    public func stop() {
        dropLink()
        if let reconnectTimer { loop.cancel(reconnectTimer) }
        reconnectTimer = nil
        phase = .stopped
        commands.transmit = { _ in }
        commands.onTimeout = { _ in }
    }

    /// Calls `done(true)` once the controller's state equals the goal, or `done(false)` after `timeout` or at
    /// once when there is no controller to ask. A clean stop sets a goal of nothing on air and waits here
    /// before it releases the adapter: a controller left advertising would go on broadcasting the RPI of a
    /// badge that has stopped (closing the HCI user channel does not reset a controller).
    public func whenGoalReached(within timeout: Duration, _ done: @escaping (Bool) -> Void) {
        guard phase == .ready else { return done(false) }
        if !stepInFlight, RadioPlan.nextStep(from: state, to: goal) == nil { return done(true) }
        var answered = false
        let timer = loop.schedule(after: timeout) {
            guard !answered else { return }
            answered = true
            done(false)
        }
        goalWaiters.append { [loop] in
            guard !answered else { return }
            answered = true
            loop.cancel(timer)
            done(true)
        }
    }

    /// Resets the controller and re-applies the goal (the console's `hci reset`).
    public func resetController() {
        guard phase == .ready || phase == .initializing else { return }
        initialize(reason: "requested by the operator")
    }

    // MARK: link

    private func connect() {
        linkGeneration += 1
        let transport = makeTransport()
        self.transport = transport
        let myLink = linkGeneration
        // The transport holds the driver until `dropLink` stops it (a transport drops its callbacks when stopped).
        transport.start(onPacket: { packet in
            guard self.linkGeneration == myLink else { return }
            self.receive(packet)
        }, onFailure: { error in
            guard self.linkGeneration == myLink else { return }
            self.transportFailed(error)
        })
        initialize(reason: nil)
    }

    private func dropLink() {
        linkGeneration += 1
        transport?.stop()
        transport = nil
        abandonCommands()
    }

    private func transportFailed(_ error: TransportError) {
        counters.transportFailures += 1
        let text = "\(error)"
        // Re-opening an absent adapter every second must not write the same two lines every second.
        let repeated = lastProblem?.text == text && phase == .initializing
        if counters.initializations > 0 { lostAt = lostAt ?? loop.now }
        lastProblem = (text, loop.now)
        switch error {
        case .unavailable:
            log.log(repeated ? .debug : .warn, .controllerUnavailable, "controller unavailable: \(text)")
            scheduleReconnect(absent: true, quietly: repeated)
        case .closed:
            log.warn(.controllerLost, "controller link lost: \(text)")
            scheduleReconnect()
        }
    }

    private func recordProblem(_ text: String) {
        lastProblem = (text, loop.now)
    }

    private func scheduleReconnect(absent: Bool = false, quietly: Bool = false) {
        dropLink()
        phase = .waitingToReconnect
        let ceiling = absent ? min(settings.reopenMaximumDelay, settings.reconnectMaximumDelay) : settings.reconnectMaximumDelay
        let delay = min(reconnectDelay, ceiling)
        reconnectDelay = min(reconnectDelay * 2, ceiling)
        log.log(quietly ? .debug : .info, "reconnecting to the controller in \(delay.humanReadable)")
        reconnectTimer = loop.schedule(after: delay) {  // cancelled by stop()
            self.reconnectTimer = nil
            self.connect()
        }
    }

    // MARK: initialisation

    private func initialize(reason: String?) {
        if let reason {
            log.warn(.controllerReinitialising, "re-initialising the controller: \(reason)")
            recordProblem(reason)
        }
        abandonCommands()
        phase = .initializing
        state = RadioState()
        let mask: EventMask = [.hardwareError, .dataBufferOverflow, .leMeta]
        let leMask: LEEventMask = [.advertisingReport, .extendedAdvertisingReport]
        // One command after another; essential ones must succeed (a refusal starts recovery and the rest is
        // dropped with the queue), the reads only inform.
        let steps: [(@escaping () -> Void) -> Void] = [
            { next in self.send(ResetCommand(), essential: true) { _ in next() } },
            { next in self.send(ReadLocalVersionInformationCommand()) { self.info.version = $0; next() } },
            { next in self.send(ReadBDAddrCommand()) { self.info.publicAddress = $0?.address; next() } },
            { next in self.send(SetEventMaskCommand(mask: mask), essential: true) { _ in next() } },
            { next in self.send(LESetEventMaskCommand(mask: leMask), essential: true) { _ in next() } },
            { next in self.send(LEReadBufferSizeCommand()) { self.info.leBufferSize = $0; next() } },
            { next in self.send(LEReadLocalSupportedFeaturesCommand()) { self.info.features = $0?.features; next() } },
            { next in self.send(LEReadAdvertisingPhysicalChannelTxPowerCommand()) { self.info.advertisingTxPower = $0?.txPower; next() } },
            // Some controllers (Bumble's among them) keep advertising across HCI_Reset: make sure nothing is on.
            { next in self.send(LESetAdvertisingEnableCommand(isEnabled: false)) { _ in next() } },
            { next in self.send(LESetScanEnableCommand(isEnabled: false)) { _ in next() } },
        ]
        run(steps[...]) { [self] in
            counters.initializations += 1
            phase = .ready
            log.info("controller ready: address \(info.publicAddress.map { "\($0)" } ?? "unknown"), "
                     + "advertising TX power \(info.advertisingTxPower.map { "\($0) dBm" } ?? "unknown")")
            if let lostAt {
                let away = (loop.now - lostAt).components
                let tenths = away.seconds * 10 + away.attoseconds / 100_000_000_000_000_000
                log.info("controller back \(tenths / 10).\(tenths % 10) s after it was lost")
                self.lostAt = nil
            }
            onReady()
            reconcile()
        }
    }

    /// Runs `steps` in order, each starting when the one before calls its continuation, then `done`.
    private func run(_ steps: ArraySlice<(@escaping () -> Void) -> Void>, then done: @escaping () -> Void) {
        guard let first = steps.first else { return done() }
        first { self.run(steps.dropFirst(), then: done) }
    }

    // MARK: radio state

    private func reconcile() {
        guard phase == .ready, !stepInFlight else { return }
        guard let step = RadioPlan.nextStep(from: state, to: goal) else {
            // Only a controller that did everything asked of it counts as recovered: one that initialises
            // fine but refuses a step every time must stay on the backoff ladder, not restart it.
            rejectionsInARow = 0
            hardwareErrorsSinceGoal = 0
            reconnectDelay = settings.reconnectInitialDelay
            onGoalReached()
            let waiters = goalWaiters
            goalWaiters.removeAll()
            waiters.forEach { $0() }
            return
        }
        stepInFlight = true
        // A refused step never gets here: send() started recovery, which dropped the queue.
        let done: (StatusReturn?) -> Void = { _ in
            self.stepInFlight = false
            self.state = step.applied(to: self.state)
            self.reconcile()
        }
        switch step {
        case .disableScanning: send(LESetScanEnableCommand(isEnabled: false), essential: true, then: done)
        case .disableAdvertising: send(LESetAdvertisingEnableCommand(isEnabled: false), essential: true, then: done)
        case .setRandomAddress(let a): send(LESetRandomAddressCommand(address: a), essential: true, then: done)
        case .setAdvertisingParameters:
            send(LESetAdvertisingParametersCommand(
                intervalMin: settings.advertisingIntervalMin, intervalMax: settings.advertisingIntervalMax,
                type: .nonConnectableUndirected, ownAddressType: .random), essential: true, then: done)
        case .setAdvertisingData(let d): send(LESetAdvertisingDataCommand(data: d), essential: true, then: done)
        case .enableAdvertising: send(LESetAdvertisingEnableCommand(isEnabled: true), essential: true, then: done)
        case .setScanParameters:
            // A passive scan transmits nothing, so its own-address type is never seen; public avoids the
            // refusal (0x12) a strict controller may give a random type before any random address is set.
            send(LESetScanParametersCommand(type: .passive, interval: settings.scanInterval,
                                            window: settings.scanWindow, ownAddressType: .public),
                 essential: true, then: done)
        case .enableScanning:
            send(LESetScanEnableCommand(isEnabled: true, filterDuplicates: false), essential: true, then: done)
        }
    }

    // MARK: commands

    /// Queues a command. `then` gets the decoded return parameters, or nil when the controller rejected
    /// the command or answered with something undecodable. An essential command that fails throws the
    /// controller state away: the host's model no longer matches the controller's, so it starts over.
    private func send<C: HCICommand>(_ command: C, essential: Bool = false,
                                     then: @escaping (C.ReturnParameters?) -> Void) {
        // Held by the queue until answered; a reset or `stop` drops it unanswered.
        commands.enqueue(command.packet) { complete in
            self.consecutiveTimeouts = 0
            let result = self.decode(complete, for: C.self)
            if result == nil && essential {
                self.recoverFromRejection(C.opcode)
                return
            }
            then(result)
        }
    }

    /// The return parameters of an answer, nil (counted and logged) for a refusal or an undecodable answer.
    private func decode<C: HCICommand>(_ complete: CommandComplete?, for: C.Type) -> C.ReturnParameters? {
        guard let complete else {
            counters.commandsRejected += 1
            return nil
        }
        // Check the status first: a refusal may carry only the status byte.
        if let status = complete.status, !status.isSuccess {
            counters.commandsRejected += 1
            log.warn("controller rejected \(C.opcode): \(status)")
            return nil
        }
        do {
            let r = try complete.returnParameters(for: C.self)
            guard r.status.isSuccess else {
                counters.commandsRejected += 1
                log.warn("controller rejected \(C.opcode): \(r.status)")
                return nil
            }
            return r
        } catch {
            counters.malformedEvents += 1
            log.warn("undecodable answer to \(C.opcode): \(error)")
            return nil
        }
    }

    private func recoverFromRejection(_ opcode: Opcode) {
        rejectionsInARow += 1
        // A controller that keeps refusing gets the slower reconnect ladder rather than a tight reset loop.
        if rejectionsInARow >= 3 || phase == .initializing {
            rejectionsInARow = 0
            recordProblem("the controller rejected \(opcode)")
            scheduleReconnect()
        } else {
            initialize(reason: "\(opcode) was rejected")
        }
    }

    private func abandonCommands() {
        commands.reset()
        stepInFlight = false
    }

    private func commandTimedOut(_ opcode: Opcode) {
        counters.commandTimeouts += 1
        consecutiveTimeouts += 1
        log.warn(.controllerSilent, "controller did not answer \(opcode) within \(settings.commandTimeout.humanReadable)")
        if consecutiveTimeouts >= 2 {
            consecutiveTimeouts = 0
            recordProblem("the controller did not answer \(opcode)")
            scheduleReconnect()
        } else {
            initialize(reason: "command timeout")
        }
    }

    // MARK: events

    private func receive(_ packet: H4Packet) {
        lastEventAt = loop.now
        guard case .event(let bytes) = packet else {
            counters.otherPackets += 1
            return
        }
        let event: HCIEvent
        do {
            event = try HCIEvent(decoding: bytes)
        } catch {
            counters.malformedEvents += 1
            log.debug("malformed event skipped: \(error)")
            return
        }
        switch event {
        case .commandComplete(let cc):
            commands.received(cc)
        case .commandStatus(let cs):
            // A status event for the command in flight is a refusal (e.g. an unknown opcode on some controllers).
            if commands.inFlightOpcode == cs.opcode { log.warn("controller answered \(cs.opcode) with status \(cs.status)") }
            commands.received(cs)
        case .hardwareError(let code):
            counters.hardwareErrors += 1
            hardwareErrorsSinceGoal += 1
            let reason = "hardware error 0x\(String(code, radix: 16))"
            // Firmware that faults again right after every reset would otherwise be reset in a tight loop.
            if hardwareErrorsSinceGoal >= 3 {
                hardwareErrorsSinceGoal = 0
                log.warn(.controllerFailing, "controller keeps failing (\(reason))")
                recordProblem(reason)
                scheduleReconnect()
            } else {
                initialize(reason: reason)
            }
        case .leAdvertisingReport, .leExtendedAdvertisingReport:
            let now = loop.now
            for advertisement in event.advertisements {
                counters.advertisingReports += 1
                onAdvertisement(advertisement, now)
            }
        case .unknown:
            counters.unknownEvents += 1
        }
    }
}
