@testable import Agent
@testable import AgentBase
import ENCore
import EventLoop
import HCI
@testable import KeyDownload
import KeySyncTestSupport
import Network
@testable import Simulation
import Testing
import TestSupport

/// The log line for an exposure found but not notified speaks the risk model's language: under `risk.model cwa`
/// a v1 score "below the threshold" would name a number that decided nothing.
extension RiskModelAgentTests {
    @Test func anExposureTheCWAModelFindsLowIsLoggedWithTheAppsVerdictNotAScore() throws {
        let world = try KeySyncWorld()
        var settings = Agent.Settings()
        settings.clockPolicy = .trusted
        settings.configuration = try Configuration(parsing: world.configurationText([
            "keyserver.style = folder", "keyserver.base_url = file://\(world.root)",
            "risk.threshold = 4096", "risk.model = cwa", "risk.cwa_config = \(Self.cwaConfiguration)",
        ]))
        var lines: [String] = []
        let board = VirtualBoard(loop: world.loop, phones: 0, log: .silent)
        let agent = try Agent(loop: world.loop, settings: settings, log: Logger(level: .info) { _, line in lines.append(line) },
                              dataDirectory: world.folder.path + "/agent", makeTransport: { board.makeAgentTransport() })
        agent.attach(network: try HTTPClient(loop: world.loop))
        // Five minutes on one day: a low risk for the app, so nothing is notified.
        let day = try #require(world.keyDay.advanced(by: -Int64(ENIntervalNumber.intervalsPerDay)))
        let tek = TemporaryExposureKey(keyData: Bytes16.random(), rollingStart: day)
        sightings(of: tek, from: day.unixSeconds + 16 * 3600, minutes: 0, schedule: world.schedule).forEach(agent.store.append)
        world.publish(world.export([DiagnosisKey(tek: tek, transmissionRiskLevel: 6)]), at: "one.zip")
        world.publishIndex(["one.zip"])
        agent.start()

        var reports: [(name: String?, report: SyncReport)]?
        _ = AgentControl(agent: agent, stop: {}).syncNow { reports = $0 }
        #expect(world.loop.run(until: { reports != nil }, timeout: .seconds(60)))
        #expect(reports?.first?.report.newExposures == 1)
        guard let exposure = agent.exposures.exposures.first else {
            Issue.record("no exposure recorded")
            return
        }
        #expect(!exposure.notified)
        let logged = lines.filter { $0.contains("exposure \(exposure.id.short)") }
        #expect(logged.count == 1, "\(lines)")
        #expect(logged.first?.hasSuffix("risk model cwa: no day of high risk among its windows' (total risk level low)") == true,
                "\(logged)")
        #expect(!lines.contains { $0.contains("below the threshold") }, "the v1 threshold decided nothing here")
        agent.stop()
    }
}

/// Under Google's model the line is the one it always was: the exposure's v1 score and the threshold it missed;
/// an exposure at or above the threshold is notified, so it has no such line.
extension ExposureTests {
    @Test func underGooglesModelTheQuietLineNamesTheScoreAndTheThresholdItMissed() {
        let low = Self.exposure(1, score: 900), high = Self.exposure(2, score: 1200)
        let verdict = ExposureVerdict(exposures: [low, high], model: .google(threshold: 1000))
        #expect(verdict.quietLine(for: low) == "exposure \(low.id.short) on \(low.date): \(low.durationMinutes) min, risk score 900, below the threshold 1000")
        #expect(verdict.quietLine(for: high) == nil)
    }
}
