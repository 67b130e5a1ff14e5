@testable import AgentBase
import EventLoop
import ENCore
import Foundation
import HCI
import Testing
@testable import Console
@testable import Simulation
import TestSupport
@testable import Agent

/// `live`: received beacons as they arrive, with proximity words, until the channel ends the stream.
@Suite struct LiveCommandTests {
    @Test func streamsJSONLinesOnTheSocketUntilEnded() throws {
        let dir = TemporaryDirectory()
        let sim = try Simulation(startUnixSeconds: Simulation.twoHoursBeforeMidnight, seed: 21, dataRoot: dir.path)
        let badge = try sim.addBadge("badge", at: .origin)
        sim.addPhone(at: RadioPosition(x: 0.5, y: 0))
        let table = AgentConsole.commandTable(for: AgentControl(agent: badge.agent, stop: {}))
        guard case .reply(.stream(let stream), _) = table.execute("live --json", channel: .socket) else {
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

    /// Staff watching `live` see a beacon within seconds, not at the next scan window minutes away; what
    /// the badge records is the same as without anyone watching.
    @Test func liveListensBetweenScanWindowsWithoutChangingWhatIsRecorded() throws {
        func run(watching: Bool) throws -> (secondsToFirstLine: Double?, sightings: Int, scans: Int, scanningAfter: Bool) {
            let dir = TemporaryDirectory()
            let sim = try Simulation(startUnixSeconds: Simulation.twoHoursBeforeMidnight, seed: 22, dataRoot: dir.path)
            let badge = try sim.addBadge("badge", at: .origin)
            sim.addPhone(at: RadioPosition(x: 2, y: 0))
            sim.run(for: .seconds(30))  // the first 4 s scan window is long over
            #expect(!badge.controller.state.isScanning)
            var firstLine: Double?
            if watching {
                let table = AgentConsole.commandTable(for: AgentControl(agent: badge.agent, stop: {}))
                guard case .reply(.stream(let stream), _) = table.execute("live", channel: .terminal) else {
                    throw TestFailure("live answers with a stream")
                }
                let started = sim.loop.now
                stream.attach(sink: { _ in
                    if firstLine == nil { firstLine = Double((sim.loop.now - started).nanosecondsValue) / 1e9 }
                }, onEnd: {})
                sim.run(for: .seconds(3600))
                stream.end()
            } else {
                sim.run(for: .seconds(3600))
            }
            sim.run(for: .seconds(1))
            let scanningAfter = badge.agent.scanner.isInScanWindow ? false : badge.controller.state.isScanning
            return (firstLine, badge.agent.sightings.recorded, badge.agent.scanner.scans, scanningAfter)
        }
        let watched = try run(watching: true)
        let unwatched = try run(watching: false)
        let seconds = try #require(watched.secondsToFirstLine, "live showed nothing in an hour")
        #expect(seconds < 2, "first beacon after \(seconds) s")
        #expect(watched.sightings == unwatched.sightings && watched.scans == unwatched.scans,
                "recorded with live: \(watched.sightings) in \(watched.scans) scans; without: \(unwatched.sightings) in \(unwatched.scans)")
        #expect(watched.sightings > 0)
        #expect(!watched.scanningAfter, "the radio stops listening between windows once live ends")
    }

    /// Without --json a person reads a line: clock time, address, RPI prefix, RSSI and the proximity word.
    @Test func withoutJSONEachBeaconIsALineForAPerson() throws {
        let dir = TemporaryDirectory()
        let sim = try Simulation(startUnixSeconds: Simulation.twoHoursBeforeMidnight, seed: 23, dataRoot: dir.path)
        let badge = try sim.addBadge("badge", at: .origin)
        sim.addPhone(at: RadioPosition(x: 0.5, y: 0))
        let table = AgentConsole.commandTable(for: AgentControl(agent: badge.agent, stop: {}))
        guard case .reply(.stream(let stream), _) = table.execute("live", channel: .socket) else {
            throw TestFailure("live answers with a stream")
        }
        var lines: [String] = []
        stream.attach(sink: { lines.append($0) }, onEnd: {})
        sim.run(for: .seconds(5))
        stream.end()
        let line = try #require(lines.first)
        let fields = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        // 22:00:01  5E:21:0A:93:7C:1D  9c1f02ab…  -51 dBm  immediate
        #expect(fields.count == 6, "\(line)")
        #expect(fields[0].count == 8 && fields[0].hasPrefix("22:00:0"), "\(line)")
        #expect(fields[1].count == 17 && fields[2].count == 9 && fields[2].hasSuffix("…"), "\(line)")
        #expect(Int(fields[3]) != nil && fields[4] == "dBm", "\(line)")
        #expect(fields[5] == AgentConsole.proximity(rssi: Int8(fields[3])), "\(line)")
    }

    /// Before, every report was a line: a dozen a second for three phones. Now each beacon is a line when
    /// first heard, then again only after 10 s or when its RSSI moves by 8 dB, and a phone that comes close
    /// shows at once.
    @Test func oneLinePerBeaconUpdatedWhenItMovesOrEveryTenSeconds() throws {
        let dir = TemporaryDirectory()
        let sim = try Simulation(startUnixSeconds: Simulation.twoHoursBeforeMidnight, seed: 24, dataRoot: dir.path)
        let badge = try sim.addBadge("badge", at: .origin)
        let phones = [1.0, 2.0, 3.0].map { sim.addPhone(at: RadioPosition(x: $0, y: 0)) }
        sim.run(for: .seconds(5))
        let table = AgentConsole.commandTable(for: AgentControl(agent: badge.agent, stop: {}))
        guard case .reply(.stream(let stream), _) = table.execute("live", channel: .socket) else {
            throw TestFailure("live answers with a stream")
        }
        var lines: [(at: MonotonicInstant, fields: [String])] = []
        stream.attach(sink: { line in
            lines.append((sim.loop.now, line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)))
        }, onEnd: {})
        var reports = 0
        let counter = badge.agent.watchBeacons { _, _ in reports += 1 }
        sim.run(for: .seconds(30))
        // The farthest phone comes within half a metre: its RSSI jumps by about 15 dB.
        let moved = sim.loop.now
        phones[2].beacon.position = RadioPosition(x: 0.5, y: 0)
        sim.run(for: .seconds(30))
        stream.end()
        badge.agent.stopWatching(counter)

        #expect(reports > 300, "\(reports) reports in a minute")
        let byBeacon = Dictionary(grouping: lines, by: { $0.fields[2] })
        #expect(byBeacon.count == 3, "one beacon per phone: \(byBeacon.keys.sorted())")
        #expect(lines.count * 10 < reports, "\(lines.count) lines for \(reports) reports")
        for (rpi, shown) in byBeacon {
            for (before, after) in zip(shown, shown.dropFirst()) {
                let apart = after.at - before.at
                let change = abs(Int(after.fields[3])! - Int(before.fields[3])!)
                #expect(apart >= .seconds(10) || change >= 8, "\(rpi): lines \(apart) apart, RSSI \(before.fields[3]) → \(after.fields[3])")
            }
        }
        let far = try #require(byBeacon.min { Int($0.value[0].fields[3])! < Int($1.value[0].fields[3])! }?.key)
        let closeLine = lines.first { $0.fields[2] == far && $0.at >= moved && Int($0.fields[3])! > -45 }
        let shownAfter = try #require(closeLine, "the phone that came close was shown").at - moved
        #expect(shownAfter < .seconds(2), "shown \(shownAfter) after it came close")
    }

    @Test func proximityWordsFollowAttenuation() {
        #expect(AgentConsole.proximity(rssi: -45) == "immediate")
        #expect(AgentConsole.proximity(rssi: -60) == "near")
        #expect(AgentConsole.proximity(rssi: -70) == "medium")
        #expect(AgentConsole.proximity(rssi: -90) == "far")
        #expect(AgentConsole.proximity(rssi: nil) == "unknown")
        #expect(AgentConsole.proximity(rssi: -60, rssiCorrection: 10) == "immediate", "0 − (−60 + 10) is 50 dB")
        #expect(AgentConsole.proximity(rssi: -60, rssiCorrection: -14) == "far", "0 − (−60 − 14) is 74 dB")
    }

    /// A badge whose radio reads 40 dB too strong (`radio.rssi_correction = -40`) hears a phone half a metre
    /// away at about −34 dBm: `live` shows that RSSI as measured, and the proximity of the corrected one, as
    /// matching would find it (about 74 dB: not "immediate", which the raw reading would say).
    @Test func proximityIsOfTheCorrectedRSSI() throws {
        let dir = TemporaryDirectory()
        let sim = try Simulation(startUnixSeconds: Simulation.twoHoursBeforeMidnight, seed: 25, dataRoot: dir.path)
        var settings = Agent.Settings()
        settings.configuration = try Configuration(parsing: "radio.rssi_correction = -40")
        let badge = try sim.addBadge("badge", at: .origin, settings: settings)
        sim.addPhone(at: RadioPosition(x: 0.5, y: 0))
        let table = AgentConsole.commandTable(for: AgentControl(agent: badge.agent, stop: {}))
        guard case .reply(.stream(let stream), _) = table.execute("live --json", channel: .socket) else {
            throw TestFailure("live answers with a stream")
        }
        var lines: [[String: Any]] = []
        stream.attach(sink: { line in
            if let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] { lines.append(object) }
        }, onEnd: {})
        sim.run(for: .seconds(30))
        stream.end()
        #expect(!lines.isEmpty)
        for line in lines {
            let rssi = try #require(line["rssi"] as? Int)
            #expect(AgentConsole.proximity(rssi: Int8(rssi)) == "immediate", "the raw \(rssi) dBm is half a metre's")
            #expect(line["proximity"] as? String == AgentConsole.proximity(rssi: Int8(rssi), rssiCorrection: -40), "\(line)")
            #expect(line["proximity"] as? String != "immediate", "\(line)")
        }
    }
}
