@testable import Agent
@testable import Console
import ENCore
import EventLoop
import HCI
@testable import Simulation
import SystemIO
import Testing
import TestSupport

/// A card that fills up: the badge says it is not on air and why, keeps its sightings in memory, and
/// recovers by itself once there is room again.
@Suite struct FullDiskTests {
    @Test func statusTellsTheTruthOnAFullCardAndTheBadgeRecoversWhenSpaceReturns() throws {
        let dir = TemporaryDirectory()
        let sim = try Simulation(startUnixSeconds: Simulation.twoHoursBeforeMidnight, seed: 31, dataRoot: dir.path)
        let badge = try sim.addBadge("badge", at: .origin)
        sim.addPhone(at: RadioPosition(x: 1, y: 0))
        let control = AgentControl(agent: badge.agent, stop: {})
        let table = AgentConsole.commandTable(for: control)
        sim.run(for: .seconds(600))
        #expect(control.status().broadcast == .onAir)

        badge.disk.isFull = true
        // Past midnight the day needs a new key, which cannot be written: nothing may go on air.
        sim.run(for: .seconds(2 * 3600))
        let status = control.status()
        #expect(status.broadcast == .keyNotStored(SystemError(call: "write", path: badge.dataDirectory + "/keys.tmp",
                                                                 code: 28)))
        #expect(badge.controller.state.isAdvertising == false, "the controller really is silent")
        #expect(status.storageError?.code == 28, "sightings cannot be written either")
        #expect((status.storage?.pendingSightings ?? 0) > 0, "they wait in memory")
        guard case .reply(.text(let text), _) = table.execute("status", channel: .socket) else {
            Issue.record("status answers in text")
            return
        }
        #expect(text.contains("broadcasting no: the day's key cannot be stored (No space left on device); "
                              + "free space in the data directory"), "\(text)")
        #expect(text.contains("waiting for the next write; writing fails: No space left on device"), "\(text)")
        guard case .reply(.json(let json), _) = table.execute("status --json", channel: .socket) else {
            Issue.record("status answers in JSON")
            return
        }
        #expect(json.contains("\"advertising\":false"), "\(json)")

        badge.disk.isFull = false
        sim.run(for: .seconds(20 * 60))
        let recovered = control.status()
        #expect(recovered.broadcast == .onAir)
        #expect(recovered.storageError == nil)
        #expect(recovered.storage?.pendingSightings == 0)
        #expect(badge.storedKeys.count == 2)
        #expect(badge.controller.violations.isEmpty)
    }
}
