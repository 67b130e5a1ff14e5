import EventLoop
@testable import HCI
import Testing

/// The command flow on its own: one command in flight, credits, refusals, timeouts, and a reset that
/// silences everything from before it.
@Suite("Command queue")
struct CommandQueueTests {
    final class Fixture {
        let loop = VirtualLoop()
        let queue: CommandQueue
        var sent: [Opcode] = []
        var answers: [(Opcode, Bool)] = []
        var timeouts: [Opcode] = []
        var creditsAssumed = 0

        init() {
            queue = CommandQueue(loop: loop, timeout: .seconds(2))
            queue.transmit = { [unowned self] in sent.append($0.opcode) }
            queue.onTimeout = { [unowned self] in timeouts.append($0) }
            queue.onCreditAssumed = { [unowned self] in creditsAssumed += 1 }
        }

        func enqueue(_ command: some HCICommand) {
            let opcode = command.packet.opcode
            queue.enqueue(command.packet) { [unowned self] in answers.append((opcode, $0 != nil)) }
        }
    }

    @Test("one command at a time: the next goes out when the first is answered")
    func oneAtATime() {
        let f = Fixture()
        f.enqueue(ResetCommand())
        f.enqueue(ReadBDAddrCommand())
        #expect(f.sent == [ResetCommand.opcode])
        f.queue.received(CommandComplete(opcode: ResetCommand.opcode, returnParameters: [0]))
        #expect(f.sent == [ResetCommand.opcode, ReadBDAddrCommand.opcode])
        #expect(f.answers.map(\.0) == [ResetCommand.opcode] && f.answers.allSatisfy(\.1))
    }

    @Test("an answer to another command grants its credits but does not end the one in flight")
    func strayAnswer() {
        let f = Fixture()
        f.enqueue(ResetCommand())
        f.queue.received(CommandComplete(opcode: ReadBDAddrCommand.opcode, returnParameters: [0]))
        #expect(f.answers.isEmpty && f.queue.inFlightOpcode == ResetCommand.opcode)
    }

    @Test("a Command Status naming the command in flight is a refusal: nil, and the next goes out")
    func statusRefuses() {
        let f = Fixture()
        f.enqueue(ResetCommand())
        f.enqueue(ReadBDAddrCommand())
        f.queue.received(CommandStatus(status: HCIStatus(rawValue: 0x01), opcode: ResetCommand.opcode))
        #expect(f.answers.count == 1 && f.answers[0].1 == false)
        #expect(f.sent.last == ReadBDAddrCommand.opcode)
    }

    @Test("no credit: nothing is sent until one comes, or the timeout assumes one")
    func credits() {
        let f = Fixture()
        f.enqueue(ResetCommand())
        f.queue.received(CommandComplete(numCommandPackets: 0, opcode: ResetCommand.opcode, returnParameters: [0]))
        f.enqueue(ReadBDAddrCommand())
        #expect(f.sent.count == 1)
        f.loop.run(for: .milliseconds(1_999))
        #expect(f.sent.count == 1 && f.creditsAssumed == 0)
        f.loop.run(for: .milliseconds(2))
        #expect(f.sent.count == 2 && f.creditsAssumed == 1)
    }

    @Test("a command unanswered for the timeout is reported once, and the queue is empty after it")
    func timeout() {
        let f = Fixture()
        f.enqueue(ResetCommand())
        f.enqueue(ReadBDAddrCommand())
        f.loop.run(for: .seconds(2))
        #expect(f.timeouts == [ResetCommand.opcode])
        #expect(f.queue.inFlightOpcode == nil && f.sent.count == 1)
        // A late answer finds nothing to complete.
        f.queue.received(CommandComplete(opcode: ResetCommand.opcode, returnParameters: [0]))
        #expect(f.answers.isEmpty)
    }

    @Test("reset drops queued and in-flight commands without answering them, and restores one credit")
    func reset() {
        let f = Fixture()
        f.enqueue(ResetCommand())
        f.enqueue(ReadBDAddrCommand())
        f.queue.reset()
        f.queue.received(CommandComplete(opcode: ResetCommand.opcode, returnParameters: [0]))
        f.loop.run(for: .seconds(10))
        #expect(f.answers.isEmpty && f.timeouts.isEmpty)
        f.enqueue(ReadBDAddrCommand())
        #expect(f.sent == [ResetCommand.opcode, ReadBDAddrCommand.opcode])
    }
}
