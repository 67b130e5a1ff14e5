@testable import Agent
@testable import AgentBase
import EventLoop
import HCI
import Network
@testable import Simulation
import Testing
import TestSupport

/// The agent's services call back into it through one link that `stop` cuts, not through weak references
/// (the board build, Embedded Swift, has none). Without the cut a stopped agent would stay alive with its
/// sighting store, its key file and its lock held open, and a simulation of many badges would keep every one.
@Suite("Agent ownership without weak references")
struct AgentOwnershipTests {
    @Test("a stopped agent that broadcast, scanned and synced is released, with its services")
    func stoppedAgentIsReleased() throws {
        let folder = TemporaryDirectory()
        let loop = VirtualLoop(startUnixNanoseconds: 1_700_000_000 * 1_000_000_000)
        let board = VirtualBoard(loop: loop, phones: 2, log: .silent)
        weak var releasedAgent: Agent?
        weak var releasedDriver: ControllerDriver?
        do {
            let agent = try Agent(loop: loop, log: .silent, dataDirectory: folder.path + "/badge",
                                  clockProbe: FixedClockSyncProbe(synchronised: true),
                                  makeTransport: { board.makeAgentTransport() })
            agent.attach(network: try HTTPClient(loop: loop))
            board.start()
            agent.start()
            loop.run(for: .seconds(120))
            #expect(agent.radio.isOnAir, "the agent ran: it is on air")
            #expect(agent.reportsHeard > 0, "the agent ran: it heard the phones")
            agent.stop()
            releasedAgent = agent
            releasedDriver = agent.driver
        }
        loop.run(for: .seconds(5))
        #expect(releasedAgent == nil, "a stopped agent is still held by its services")
        #expect(releasedDriver == nil, "a stopped agent's controller driver is still held")
    }

    @Test("a simulation that goes stops its badges and lets them go")
    func droppedSimulationReleasesItsBadges() throws {
        let folder = TemporaryDirectory()
        weak var releasedFirst: Agent?
        weak var releasedSecond: Agent?
        do {
            let simulation = try Simulation(startUnixSeconds: Simulation.twoHoursBeforeMidnight, seed: 11,
                                            dataRoot: folder.path)
            let first = try simulation.addBadge("first", at: .origin)
            let second = try simulation.addBadge("second", at: RadioPosition(x: 1, y: 0))
            simulation.run(for: .seconds(600))
            #expect(first.agent.reportsHeard > 0 && second.agent.reportsHeard > 0, "the badges heard each other")
            releasedFirst = first.agent
            releasedSecond = second.agent
        }
        #expect(releasedFirst == nil && releasedSecond == nil, "a dropped simulation's badges are still held")
    }
}
