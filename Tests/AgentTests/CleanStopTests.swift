@testable import Agent
import EventLoop
import HCI
@testable import Simulation
import Testing
import TestSupport

/// The first half of a clean stop (`Agent.quiesceRadio`): nothing on air before the adapter is released.
@Suite struct CleanStopTests {
    @Test("advertising and scanning are off at the controller when quiesceRadio says done")
    func quiesceConfirmed() throws {
        let dir = TemporaryDirectory()
        let sim = try Simulation(startUnixSeconds: Simulation.twoHoursBeforeMidnight, seed: 3, dataRoot: dir.path)
        let badge = try sim.addBadge("badge", at: RadioPosition(x: 0, y: 0))
        // The first scan starts with the first broadcast and lasts 4 s: both are on now.
        sim.run(for: .seconds(2))
        try #require(badge.controller.state.isAdvertising && badge.controller.state.isScanning)

        var confirmed: Bool?
        var stateWhenDone: (advertising: Bool, scanning: Bool)?
        badge.agent.quiesceRadio(within: .seconds(2)) { ok in
            confirmed = ok
            stateWhenDone = (badge.controller.state.isAdvertising, badge.controller.state.isScanning)
        }
        #expect(confirmed == nil, "answered before the controller was asked")
        sim.run(for: .seconds(1))
        #expect(confirmed == true)
        #expect(stateWhenDone?.advertising == false)
        #expect(stateWhenDone?.scanning == false)
        #expect(badge.controller.violations.isEmpty)
    }

    @Test("a controller that stops answering: quiesceRadio gives up after its timeout, saying so")
    func quiesceTimesOut() throws {
        let dir = TemporaryDirectory()
        let sim = try Simulation(startUnixSeconds: Simulation.twoHoursBeforeMidnight, seed: 4, dataRoot: dir.path)
        let badge = try sim.addBadge("badge", at: RadioPosition(x: 0, y: 0))
        sim.run(for: .seconds(2))
        badge.controller.goSilent()
        var confirmed: Bool?
        let asked = sim.loop.now
        var answeredAt = asked
        badge.agent.quiesceRadio(within: .milliseconds(1500)) { ok in
            confirmed = ok
            answeredAt = sim.loop.now
        }
        sim.run(for: .seconds(3))
        #expect(confirmed == false)
        #expect(answeredAt - asked == .milliseconds(1500))
    }
}
