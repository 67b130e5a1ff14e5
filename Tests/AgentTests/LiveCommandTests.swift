import ENCore
import Foundation
import HCI
import Testing
@testable import Agent

/// `live`: received beacons as they arrive, with proximity words, until the channel ends the stream.
@Suite struct LiveCommandTests {
    @Test func streamsJSONLinesOnTheSocketUntilEnded() throws {
        let dir = TemporaryDirectory()
        let sim = try Simulation(startUnixSeconds: simulationStart, seed: 21, dataRoot: dir.path)
        let badge = try sim.addBadge("badge", at: .origin)
        sim.addPhone(at: RadioPosition(x: 0.5, y: 0))
        let table = AgentConsole.commandTable(for: badge.agent, stop: {})
        guard case .reply(.stream(let stream), _) = table.execute("live", channel: .socket) else {
            Issue.record("live answers with a stream")
            return
        }
        var lines: [String] = []
        stream.attach(sink: { lines.append($0) }, onEnd: {})
        sim.run(for: .seconds(300))
        #expect(!lines.isEmpty, "the first scan's beacons are streamed")
        let first = try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as! [String: Any]
        #expect((first["rpi"] as? String)?.count == 32)
        #expect(["immediate", "near", "medium", "far"].contains(first["proximity"] as? String ?? ""))
        #expect(first["rssi"] is Int)

        stream.end()
        let count = lines.count
        sim.run(for: .seconds(600))
        #expect(lines.count == count, "nothing after the stream ended: the observer is gone")
        if case .reply(.endStream, _) = table.execute("live off", channel: .socket) {} else {
            Issue.record("live off ends a stream")
        }
    }

    @Test func proximityWordsFollowAttenuation() {
        #expect(AgentConsole.proximity(rssi: -45) == "immediate")
        #expect(AgentConsole.proximity(rssi: -60) == "near")
        #expect(AgentConsole.proximity(rssi: -70) == "medium")
        #expect(AgentConsole.proximity(rssi: -90) == "far")
        #expect(AgentConsole.proximity(rssi: nil) == "unknown")
    }
}
