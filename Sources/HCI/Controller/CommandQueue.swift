import EventLoop

/// The HCI command flow of one controller: commands go out one at a time and only while the controller
/// grants credits (Num_HCI_Command_Packets); each ends with its Command Complete, a refusing Command
/// Status, or a timeout.
///
/// Only the flow lives here; what a refusal or a timeout means for the controller (reset, reconnect) is the
/// driver's decision, told through `onTimeout`. `reset()` forgets everything queued or in flight: their
/// completions are never called, so nothing from before a reset can act on the controller after it.
final class CommandQueue {
    private struct Pending {
        let packet: HCICommandPacket
        let completion: (CommandComplete?) -> Void
    }

    /// Puts a command on the wire.
    var transmit: (HCICommandPacket) -> Void = { _ in }
    /// The command in flight went unanswered for the timeout; the queue has been reset.
    var onTimeout: (Opcode) -> Void = { _ in }
    /// The controller granted no credit for the timeout and one is assumed; for the log.
    var onCreditAssumed: () -> Void = {}

    private let loop: any EventLoop
    private let timeout: Duration
    private var waiting: [Pending] = []
    private var inFlight: Pending?
    private var inFlightTimer: TimerHandle?
    private var creditTimer: TimerHandle?
    /// After a reset the host may send exactly one command.
    private var credits = 1

    init(loop: any EventLoop, timeout: Duration) {
        self.loop = loop
        self.timeout = timeout
    }

    /// Queues a command; `completion` gets its Command Complete, or nil when the controller refused it with a
    /// Command Status.
    func enqueue(_ packet: HCICommandPacket, completion: @escaping (CommandComplete?) -> Void) {
        waiting.append(Pending(packet: packet, completion: completion))
        pump()
    }

    /// Drops every queued and in-flight command without calling their completions, and starts again with
    /// one credit (the state after HCI_Reset or on a new link).
    func reset() {
        waiting.removeAll()
        inFlight = nil
        if let inFlightTimer { loop.cancel(inFlightTimer) }
        inFlightTimer = nil
        if let creditTimer { loop.cancel(creditTimer) }
        creditTimer = nil
        credits = 1
    }

    /// A Command Complete: its credits, and the end of the command in flight if it answers that one.
    func received(_ complete: CommandComplete) {
        credits = Int(complete.numCommandPackets)
        if inFlightOpcode == complete.opcode { finish(complete) } else { pump() }
    }

    /// A Command Status: its credits, and a refusal of the command in flight if it names that one — none of
    /// the driver's commands answers with Command Status on success.
    func received(_ status: CommandStatus) {
        credits = Int(status.numCommandPackets)
        if inFlightOpcode == status.opcode { finish(nil) } else { pump() }
    }

    /// The command waiting for its answer, if any.
    var inFlightOpcode: Opcode? { inFlight?.packet.opcode }

    private func pump() {
        guard inFlight == nil, !waiting.isEmpty else { return }
        guard credits > 0 else {
            // A controller that said "no more commands" and never sent the event that lifts it would stall
            // the host for good; after a timeout, assume one credit.
            if creditTimer == nil {
                // The loop holds the queue until the timer fires or `reset` cancels it.
                creditTimer = loop.schedule(after: timeout) { [self] in
                    creditTimer = nil
                    onCreditAssumed()
                    credits = 1
                    pump()
                }
            }
            return
        }
        if let creditTimer { loop.cancel(creditTimer) }
        creditTimer = nil
        let next = waiting.removeFirst()
        inFlight = next
        credits -= 1
        inFlightTimer = loop.schedule(after: timeout) { [self] in
            inFlightTimer = nil
            reset()
            onTimeout(next.packet.opcode)
        }
        transmit(next.packet)
    }

    private func finish(_ answer: CommandComplete?) {
        guard let pending = inFlight else { return }
        inFlight = nil
        if let inFlightTimer { loop.cancel(inFlightTimer) }
        inFlightTimer = nil
        pending.completion(answer)
        pump()
    }
}
