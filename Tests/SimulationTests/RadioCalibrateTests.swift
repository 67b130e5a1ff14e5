@testable import Agent
@testable import AgentBase
@testable import Console
import ENCore
import Foundation
import HCI
@testable import Simulation
import SystemIO
import Testing
import TestSupport

/// `radio calibrate` on a whole agent in virtual time: a phone 1 m from the badge on the virtual air, whose
/// signal arrives through the path-loss model (40 dB at 1 m, 2 dB of noise), is measured, the correction that
/// turns its median into the RSSI at 1 m given is reported, and `radio calibrate save` keeps it only with consent.
@Suite struct RadioCalibrateTests {
    static func reply(_ outcome: ConsoleOutcome, in sim: Simulation, waiting: Duration = .seconds(61)) -> ConsoleReply? {
        guard case .reply(let reply, _) = outcome else { return nil }
        guard case .deferred(let later) = reply else { return reply }
        var answer: ConsoleReply?
        later.attach { answer = $0 }
        sim.run(for: waiting)
        return answer
    }

    static func text(_ reply: ConsoleReply?) -> String? {
        switch reply {
        case .text(let t)?, .json(let t)?, .error(let t)?: t
        default: nil
        }
    }

    @Test func aPhoneOneMetreAwayGivesTheCorrectionItsPathLossImplies() throws {
        let dir = TemporaryDirectory()
        let sim = try Simulation(startUnixSeconds: Simulation.twoHoursBeforeMidnight, seed: 11, dataRoot: dir.path)
        var settings = Agent.Settings()
        settings.configurationFile = ConfigurationFile(path: dir.path + "/enbeacon.conf")
        let badge = try sim.addBadge("badge", at: .origin, settings: settings)
        // TX power 0 at 1 m: the air delivers −40 dBm on average. A calibrated receiver reads it at −34 dBm,
        // so this badge reads 6 dB low and its correction is +6.
        sim.addPhone(at: RadioPosition(x: 1, y: 0), txPower: 0)
        sim.run(for: .seconds(5))
        let table = AgentConsole.commandTable(for: AgentControl(agent: badge.agent, stop: {}))

        let json = try #require(Self.text(Self.reply(table.execute("radio calibrate -34 60 --json", channel: .socket), in: sim)))
        let measured = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let correction = try #require(measured["rssiCorrection"] as? Int)
        #expect(abs(correction - 6) <= 1, "\(json)")
        #expect(try #require(measured["reports"] as? Int) >= CalibrationMeasurement.minimumSamples)
        #expect(badge.agent.configuration.source(of: .radioRSSICorrection) == .default, "measuring saves nothing")

        // Saving needs consent: on a terminal it is asked for, through ctl it needs --yes.
        guard case .confirm = table.execute("radio calibrate save", channel: .terminal) else {
            Issue.record("radio calibrate save must ask first")
            return
        }
        #expect(badge.agent.configuration.source(of: .radioRSSICorrection) == .default)
        let saved = Self.text(Self.reply(table.execute("radio calibrate save --yes", channel: .socket), in: sim, waiting: .zero))
        #expect(saved?.hasPrefix("radio.rssi_correction = \(correction) saved") == true, "\(saved ?? "nil")")
        #expect(badge.agent.configuration.integer(.radioRSSICorrection) == correction)
        #expect(badge.agent.keySyncSettings.rssiCorrection == correction, "the next match uses it")
        let file = try TextFile.contents(of: dir.path + "/enbeacon.conf")
        #expect(file.contains("radio.rssi_correction = \(correction)"), "\(file)")
    }

    @Test func withNothingAdvertisingNearbyTheMeasurementIsRefusedAndNothingCanBeSaved() throws {
        let dir = TemporaryDirectory()
        let sim = try Simulation(startUnixSeconds: Simulation.twoHoursBeforeMidnight, seed: 12, dataRoot: dir.path)
        let badge = try sim.addBadge("badge", at: .origin)
        let table = AgentConsole.commandTable(for: AgentControl(agent: badge.agent, stop: {}))
        let refused = Self.reply(table.execute("radio calibrate -34 10", channel: .socket), in: sim, waiting: .seconds(11))
        guard case .error(let message)? = refused else {
            Issue.record("expected an error, got \(String(describing: refused))")
            return
        }
        #expect(message.contains("no Exposure Notification beacon heard"), "\(message)")
        let save = Self.text(Self.reply(table.execute("radio calibrate save --yes", channel: .socket), in: sim, waiting: .zero))
        #expect(save?.contains("nothing measured yet") == true)
        #expect(badge.agent.configuration.source(of: .radioRSSICorrection) == .default)
    }
}
