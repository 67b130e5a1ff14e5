@testable import Agent
@testable import AgentBase
@testable import Console
import ENCore
import EventLoop
import HCI
@testable import KeyDownload
@testable import Simulation
import SystemIO
import Testing
import TestSupport

/// The whole agent with the virtual board's LED, buzzer and button, in virtual time: the LED says what the
/// agent knows (on air, waiting for the clock, a controller or storage fault), an exposure found by a key sync
/// takes over until a press acknowledges it, and the console shows it all.
@Suite struct IndicatorAgentTests {
    /// The LED's and buzzer's pulses over `duration`, sampled every 10 ms of virtual time: (start offset in
    /// ms, width in ms), leaving out a pulse already lit at the start or still lit at the end.
    static func pulses(_ badge: SimulatedBadge, _ sim: Simulation, for duration: Duration)
        -> (led: [(Int64, Int64)], buzzer: [(Int64, Int64)]) {
        let indicator = badge.indicator!
        var led: [(Int64, Int64)] = [], buzzer: [(Int64, Int64)] = []
        var ledStart: Int64?, buzzerStart: Int64?
        var ledSeenDark = false, buzzerSeenSilent = false
        for step in 0..<Int64(duration.components.seconds * 100) {
            let t = step * 10
            if indicator.led.isOn {
                if ledStart == nil && ledSeenDark { ledStart = t }
            } else {
                ledSeenDark = true
                if let s = ledStart { led.append((s, t - s)) }
                ledStart = nil
            }
            if indicator.buzzer.isOn {
                if buzzerStart == nil && buzzerSeenSilent { buzzerStart = t }
            } else {
                buzzerSeenSilent = true
                if let s = buzzerStart { buzzer.append((s, t - s)) }
                buzzerStart = nil
            }
            sim.run(for: .milliseconds(10))
        }
        return (led, buzzer)
    }

    /// Flash widths and the gaps between flash starts, rounded to 10 ms.
    static func shape(_ pulses: [(Int64, Int64)]) -> (widths: Set<Int64>, gaps: Set<Int64>) {
        (Set(pulses.map(\.1)), Set(zip(pulses, pulses.dropFirst()).map { $1.0 - $0.0 }))
    }

    @Test("a key sync's exposure takes the LED and buzzer over until a press acknowledges it; it stays recorded")
    func exposureSignalUntilAcknowledged() throws {
        let dir = TemporaryDirectory()
        let sim = try Simulation(startUnixSeconds: Simulation.twoHoursBeforeMidnight, seed: 41, dataRoot: dir.path)
        // A key server in a folder, and a key this badge met two days ago.
        let server = try FolderKeyServer(in: dir.path)
        let badge = try sim.addBadge("wearer", at: .origin, settings: server.settings, indicator: true)
        let keyDay = ENIntervalNumber(unixSeconds: sim.unixSeconds)!.dayStart.advanced(by: -288)!
        let tek = TemporaryExposureKey(keyData: Bytes16([UInt8](repeating: 0x5A, count: 16))!, rollingStart: keyDay)
        try FolderKeyServer.hear(tek, at: stride(from: keyDay.unixSeconds + 9 * 3600,
                                                 through: keyDay.unixSeconds + 9 * 3600 + 1800, by: 300), on: badge)
        let control = AgentControl(agent: badge.agent, stop: {})
        let table = AgentConsole.commandTable(for: control)

        sim.run(for: .seconds(5))
        #expect(badge.agent.indicator.state == .onAir)
        let onAir = Self.pulses(badge, sim, for: .seconds(16))
        #expect(Self.shape(onAir.led).widths == [150] && Self.shape(onAir.led).gaps == [5_000], "\(onAir.led)")
        #expect(onAir.led.count == 3 && onAir.buzzer.isEmpty)

        try server.publish([DiagnosisKey(tek: tek, transmissionRiskLevel: 4)], day: keyDay)
        var report: SyncReport?
        _ = badge.control.syncNow { report = $0.first?.report }
        for _ in 0..<600 where report == nil { sim.run(for: .milliseconds(100)) }
        #expect(report?.newExposures == 1, "\(String(describing: report))")
        #expect(badge.agent.indicator.state == .exposureFound)
        let exposure = Self.pulses(badge, sim, for: .seconds(21))
        #expect(Self.shape(exposure.led).widths == [200] && Self.shape(exposure.led).gaps == [400], "\(exposure.led)")
        // Three beeps at the start of each 10 s cycle.
        #expect(exposure.buzzer.count >= 6 && Self.shape(exposure.buzzer).widths == [200])
        #expect(Self.shape(exposure.buzzer).gaps == [400, 9_200], "\(exposure.buzzer)")

        guard case .reply(.text(let status), _) = table.execute("status", channel: .socket),
              case .reply(.json(let json), _) = table.execute("indicator --json", channel: .socket) else {
            Issue.record("status and indicator answer")
            return
        }
        #expect(status.contains("indicator    exposure found: fast blinking, three beeps every 10 s, until acknowledged "
                                + "(virtual LED "), "\(status)")
        #expect(json.contains("\"state\":\"exposureFound\"") && json.contains("\"exposuresToAcknowledge\":1"), "\(json)")

        // A carer presses the button for 0.3 s.
        badge.indicator!.button.press()
        sim.run(for: .milliseconds(300))
        badge.indicator!.button.letGo()
        sim.run(for: .seconds(3))
        #expect(badge.agent.indicator.state == .onAir)
        let after = Self.pulses(badge, sim, for: .seconds(11))
        #expect(Self.shape(after.led).widths == [150] && after.buzzer.isEmpty, "\(after.led)")
        #expect(badge.agent.exposures.exposures.count == 1, "the exposure stays recorded")
        // Acknowledged on disk: a restarted agent would not blink for it again.
        let reread = ExposureLog(dataDirectory: badge.dataDirectory, log: .silent)
        #expect(reread.acknowledgedIDs == [ExposureID(key: tek)] && reread.exposures.count == 1)
        guard case .reply(.text(let ack), _) = table.execute("indicator ack", channel: .socket) else {
            Issue.record("indicator ack answers")
            return
        }
        #expect(ack == "no exposure signal to acknowledge")
    }

    @Test("waiting for the clock: two flashes; a silent controller: three; a full card: four; and back")
    func faultsShowAsFlashCounts() throws {
        let dir = TemporaryDirectory()
        let sim = try Simulation(startUnixSeconds: Simulation.twoHoursBeforeMidnight, seed: 43, dataRoot: dir.path)
        var settings = Agent.Settings()
        settings.clockPolicy = .ntp
        let badge = try sim.addBadge("badge", at: .origin, settings: settings,
                                     clockProbe: FixedClockSyncProbe(synchronised: false), indicator: true)
        /// Flashes per 5 s cycle: the sizes of the groups of flashes 0.5 s apart, leaving out the first and
        /// last group of the 16 s looked at (they may be cut).
        func flashes() -> Set<Int> {
            let led = Self.pulses(badge, sim, for: .seconds(16)).led
            var groups: [[Int64]] = []
            for (start, _) in led {
                if let last = groups.last?.last, start - last < 1_000 { groups[groups.count - 1].append(start) } else { groups.append([start]) }
            }
            return Set(groups.dropFirst().dropLast().map(\.count))
        }
        sim.run(for: .seconds(3))
        #expect(badge.agent.indicator.state == .waitingForClock)
        #expect(flashes() == [2])

        AgentControl(agent: badge.agent, stop: {}).trustClock()
        sim.run(for: .seconds(3))
        #expect(badge.agent.indicator.state == .onAir)

        badge.controller.goSilent()
        sim.run(for: .seconds(30))
        #expect(badge.agent.indicator.state == .controllerFault)
        #expect(flashes() == [3])
        badge.controller.resumeAnswering()
        sim.run(for: .seconds(30))
        #expect(badge.agent.indicator.state == .onAir)

        badge.disk.isFull = true
        badge.agent.store.append(SyntheticSightings.sighting(number: 1, firstSeen: sim.unixSeconds))
        badge.agent.flush()
        sim.run(for: .seconds(1))
        #expect(badge.agent.indicator.state == .storageFault)
        #expect(flashes() == [4])
        badge.disk.isFull = false
        badge.agent.flush()
        sim.run(for: .seconds(6))
        #expect(badge.agent.indicator.state == .onAir)
    }
}

/// The console's indicator commands on badges with and without an indicator.
@Suite struct IndicatorConsoleTests {
    static func text(_ outcome: ConsoleOutcome) -> String? {
        if case .reply(.text(let text), _) = outcome { return text }
        if case .reply(.error(let text), _) = outcome { return "error: " + text }
        return nil
    }

    @Test("without LED or buzzer: status says none, find and indicator test say what to configure")
    func noIndicator() throws {
        let dir = TemporaryDirectory()
        let sim = try Simulation(startUnixSeconds: Simulation.twoHoursBeforeMidnight, seed: 47, dataRoot: dir.path)
        let badge = try sim.addBadge("plain", at: .origin)
        let table = AgentConsole.commandTable(for: AgentControl(agent: badge.agent, stop: {}))
        sim.run(for: .seconds(3))
        let status = try #require(Self.text(table.execute("status", channel: .terminal)))
        #expect(status.contains("\nindicator    none (indicator.* in the board file)"), "\(status)")
        for command in ["find", "indicator test"] {
            #expect(Self.text(table.execute(command, channel: .terminal))
                    == "error: this badge has no LED or buzzer (indicator.led, indicator.buzzer in the board file)")
        }
        #expect(Self.text(table.execute("indicator", channel: .terminal)) == """
            state    on air: one short flash every 5 s
            LED      none
            buzzer   none
            button   none
            """)
    }

    @Test("with the virtual indicator: find blinks and beeps for a minute, find stop ends it, indicator test lists its parts")
    func findAndTest() throws {
        let dir = TemporaryDirectory()
        let sim = try Simulation(startUnixSeconds: Simulation.twoHoursBeforeMidnight, seed: 53, dataRoot: dir.path)
        let badge = try sim.addBadge("badge", at: .origin, indicator: true)
        let table = AgentConsole.commandTable(for: AgentControl(agent: badge.agent, stop: {}))
        sim.run(for: .seconds(3))
        #expect(Self.text(table.execute("find", channel: .terminal)) == "blinking and beeping for 60 s (find stop, or a short press, ends it)")
        let buzzerBefore = badge.indicator!.buzzer.changes
        sim.run(for: .seconds(30))
        #expect(badge.indicator!.buzzer.changes - buzzerBefore == 60, "a beep a second")
        #expect(Self.text(table.execute("indicator", channel: .terminal))?.contains("playing  find: blinking and beeping") == true)
        #expect(Self.text(table.execute("find stop", channel: .terminal)) == "stopped")
        #expect(Self.text(table.execute("find stop", channel: .terminal)) == "nothing was playing")
        #expect(Self.text(table.execute("find now", channel: .terminal)) == "error: usage: find [stop] [--json] (expected stop or nothing)")
        let test = try #require(Self.text(table.execute("indicator test", channel: .terminal)))
        #expect(test.hasPrefix("playing every pattern once (34.1 s):\n  at 0.0 s  on air\n  at 1.1 s  waiting for a trusted clock"), "\(test)")
        sim.run(for: .seconds(35))
        #expect(badge.agent.indicator.signal == nil, "the test is over after 34.1 s")
    }
}
