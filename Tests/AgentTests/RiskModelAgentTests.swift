@testable import Agent
@testable import AgentBase
@testable import Console
import ENCore
import Foundation
import HCI
@testable import KeyDownload
import KeySyncTestSupport
import Network
@testable import Simulation
import Testing
import TestSupport

/// `risk.model cwa`: the Corona-Warn-App's risk calculation decides what the agent notifies, over the windows
/// the agent formed, with the app's own configuration.
@Suite struct RiskModelAgentTests {
    /// The app's test file, whose defaultRiskCalculationConfiguration is the app's default configuration.
    static let cwaConfiguration = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("ENCoreTests/Resources/CoronaWarnApp/exposure-windows-risk-calculation.json").path

    @Test func theCWAModelNeedsItsConfigurationAndSaysWhatIsWrongWithIt() throws {
        var c = Configuration()
        #expect(try RiskModel(configuration: c) == .google(threshold: 1), "google stays the default")
        try c.set("risk.model", to: "cwa")
        let missing = #expect(throws: ConfigurationError.self) { try RiskModel(configuration: c) }
        #expect(missing?.message.hasPrefix("risk.cwa_config is required with risk.model cwa") == true)
        let folder = TemporaryDirectory()
        let path = folder.path + "/not-cwa.json"
        try #"{"minimumWindowScore": 0}"#.write(toFile: path, atomically: false, encoding: .utf8)
        try c.set("risk.cwa_config", to: path)
        let wrong = #expect(throws: ConfigurationError.self) { try RiskModel(configuration: c) }
        #expect(wrong?.message.hasPrefix("risk.cwa_config: \(path): ") == true)
        try c.set("risk.cwa_config", to: Self.cwaConfiguration)
        #expect(try RiskModel(configuration: c).name == "cwa")
    }

    /// A sync meets three planted keys: an hour and a quarter of an hour on one day, one scan (five minutes) the day before. With
    /// risk.threshold at its highest Google's model would notify none; the app's model decides instead, and its
    /// verdict is what `enbeacon risk` computes from `exposures --windows --json`.
    @Test func aSyncWithTheCWAModelNotifiesWhatTheAppsCalculationFindsHigh() throws {
        let world = try KeySyncWorld()
        let dataDirectory = world.folder.path + "/agent"
        var settings = Agent.Settings()
        settings.clockPolicy = .trusted
        settings.configuration = try Configuration(parsing: world.configurationText([
            "keyserver.style = folder", "keyserver.base_url = file://\(world.root)",
            "risk.threshold = 4096", "risk.model = cwa", "risk.cwa_config = \(Self.cwaConfiguration)",
        ]))
        let board = VirtualBoard(loop: world.loop, phones: 0, log: .silent)
        let agent = try Agent(loop: world.loop, settings: settings, log: .silent, dataDirectory: dataDirectory,
                              makeTransport: { board.makeAgentTransport() })
        agent.attach(network: try HTTPClient(loop: world.loop))
        let control = AgentControl(agent: agent, stop: {})
        let console = AgentConsole.commandTable(for: control)

        var keys: [DiagnosisKey] = []
        for (daysBefore, hour, minutes) in [(0, 8, 60), (0, 12, 15), (1, 16, 0)] {
            let day = try #require(world.keyDay.advanced(by: -Int64(daysBefore) * Int64(ENIntervalNumber.intervalsPerDay)))
            let tek = TemporaryExposureKey(keyData: Bytes16.random(), rollingStart: day)
            sightings(of: tek, from: day.unixSeconds + Int64(hour * 3600), minutes: minutes, schedule: world.schedule)
                .forEach(agent.store.append)
            keys.append(DiagnosisKey(tek: tek, transmissionRiskLevel: 6))
        }
        world.publish(world.export(keys + world.strangers(10)), at: "one.zip")
        world.publishIndex(["one.zip"])
        agent.start()

        var reports: [(name: String?, report: SyncReport)]?
        #expect(control.syncNow { reports = $0 } == .started)
        #expect(world.loop.run(until: { reports != nil && (agent.notifier.command?.running ?? 0) == 0 },
                               timeout: .seconds(60)))
        #expect(reports?.first?.report.newExposures == 3)

        // What `enbeacon risk --windows` reads: the windows as `exposures --windows --json` gives them.
        guard case .reply(.json(let windowsJSON), _) = console.execute("exposures --windows --json", channel: .pipe) else {
            Issue.record("exposures --windows --json gave no JSON")
            return
        }
        let today = UTCDay(unixSeconds: Int64(Date().timeIntervalSince1970))
        let windows = try ExposureWindowsJSON.windows(json: windowsJSON, today: today)
        let configuration = try CWARiskConfiguration(json: String(contentsOfFile: Self.cwaConfiguration, encoding: .utf8))
        let expected = CWARiskModel.risk(of: windows, configuration: configuration)
        #expect(expected.totalRiskLevel == .high, "an hour at 50 dB is a high risk for the app")
        #expect(expected.numberOfDays(with: .low) == 1, "five minutes alone on a day are a low one")

        let verdict = control.riskVerdict
        #expect(verdict.model.name == "cwa")
        #expect(verdict.cwa == expected)
        let highDays = Set(expected.days.filter { $0.riskLevel == .high }.map(\.date))
        let notified = Set(agent.exposures.exposures.filter(\.notified).map(\.id))
        #expect(notified.count == 2 && world.notifications.count == 2, "the exposures of the high day, not the low one's")
        #expect(notified == Set(agent.exposures.exposures.filter { $0.windows.contains { highDays.contains($0.date) } }.map(\.id)),
                "the exposures on the days the app finds high are notified, whatever risk.threshold says")
        #expect(agent.exposuresToAcknowledge.count == notified.count, "and the badge signals them")

        // `exposures` and `status` say which model decided, and what.
        guard case .reply(.text(let listing), _) = console.execute("exposures", channel: .pipe),
              case .reply(.json(let json), _) = console.execute("exposures --json", channel: .pipe),
              case .reply(.text(let status), _) = console.execute("status", channel: .pipe) else {
            Issue.record("exposures or status gave no answer")
            return
        }
        let summary = "risk model cwa: high risk, \(expected.numberOfDays(with: .high)) day(s) with high risk, "
            + "\(expected.numberOfDays(with: .low)) with low risk"
        #expect(listing.hasSuffix("\n" + summary))
        #expect(status.contains(summary))
        let document = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let answer = try #require(document["verdict"] as? [String: Any])
        #expect(answer["model"] as? String == "cwa" && answer["totalRiskLevel"] as? String == "high")
        #expect(answer["numberOfDaysWithHighRisk"] as? Int == expected.numberOfDays(with: .high))
        agent.stop()
    }
}
