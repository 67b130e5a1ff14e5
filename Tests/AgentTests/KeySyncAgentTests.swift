@testable import Agent
@testable import AgentBase
import ENCore
import EventLoop
import Foundation
import HCI
@testable import KeyDownload
import KeySyncTestSupport
import Testing
@testable import Simulation
import Network

/// Key sync wired into the whole agent: configured from a config file, started with a trusted clock,
/// reconfigured by `setConfiguration`, stopped with the agent.
@Suite struct KeySyncAgentTests {
    @Test func agentSyncsFromItsConfigurationAndWritesChangesBack() throws {
        let world = try KeySyncWorld()
        let dataDirectory = world.folder.path + "/agent"
        let tek = TemporaryExposureKey(keyData: Bytes16.random(), rollingStart: world.keyDay)
        world.publish(world.export([DiagnosisKey(tek: tek, transmissionRiskLevel: 4)]), at: "one.zip")
        world.publishIndex(["one.zip"])
        let configPath = world.folder.path + "/enbeacon.conf"
        try (world.configurationText(["keyserver.style = folder", "keyserver.base_url = file://\(world.root)",
                                      "# sync twice a day", "sync.interval_hours = 12"]) + "\n")
            .write(toFile: configPath, atomically: false, encoding: .utf8)

        var lines: [String] = []
        let log = Logger(level: .info) { level, line in lines.append("\(level) \(line)") }
        var settings = Agent.Settings()
        settings.clockPolicy = .trusted
        settings.configurationFile = ConfigurationFile(path: configPath)
        settings.configuration = try ConfigurationFile(path: configPath).load()
        try settings.configuration.override("risk.threshold=2000")
        let board = VirtualBoard(loop: world.loop, phones: 0, log: .silent)
        let agent = try Agent(loop: world.loop, settings: settings, log: log, dataDirectory: dataDirectory,
                              makeTransport: { board.makeAgentTransport() })
        agent.attach(network: try HTTPClient(loop: world.loop))
        let keySync = try #require(agent.keyDownload)
        sightings(of: tek, from: world.keyDay.unixSeconds + 9 * 3600, minutes: 30, schedule: world.schedule)
            .forEach(agent.store.append)
        agent.start()
        #expect(keySync.status.phase == .idle)
        #expect(keySync.status.nextSync != nil)

        var reports: [SyncReport] = []
        keySync.onRunFinished = { reports.append($0) }
        #expect(keySync.syncNow() == .started)
        #expect(keySync.syncNow() == .alreadyRunning)
        #expect(world.loop.run(until: { !reports.isEmpty }))
        #expect(reports.first?.outcome == .succeeded)
        let exposure = try #require(agent.exposures.exposures.first)
        #expect(exposure.id == ExposureID(key: tek))
        // 1120 is below the --set threshold of 2000: recorded, not notified.
        #expect(exposure.riskScore == 1120 && !exposure.notified)
        #expect(agent.notifier.notified == 0)

        // config set: checked, written back (the comment and other keys kept), applied at once.
        #expect(throws: ConfigurationError.self) { try agent.setConfiguration("risk.threshold", to: "5000") }
        try agent.setConfiguration("risk.threshold", to: "1000")
        #expect(agent.configuration.integer(.riskThreshold) == 1000)
        #expect(agent.configuration.source(of: .riskThreshold) == .file)
        let text = try String(contentsOfFile: configPath, encoding: .utf8)
        #expect(text.contains("# sync twice a day\nsync.interval_hours = 12\n"))
        #expect(text.hasSuffix("risk.threshold = 1000\n"))
        #expect(agent.notifier.settings.threshold == 1000)
        #expect(agent.notifier.notified == 1, "an exposure now over the threshold is notified at once")
        #expect(world.loop.run(until: { (agent.notifier.command?.running ?? 0) == 0 }))
        #expect(world.notifications.count == 1)
        #expect(throws: ConfigurationError.self) { try agent.setConfiguration("keyserver.public_key", to: "/nope.pem") }
        #expect(agent.configuration[.keyServerPublicKey] == world.publicKeyPath)

        // Syncing again adds nothing and notifies nobody twice.
        reports.removeAll()
        #expect(keySync.syncNow() == .started)
        #expect(world.loop.run(until: { !reports.isEmpty }))
        #expect(reports.first?.new == 0)
        #expect(agent.exposures.exposures.count == 1 && agent.notifier.notified == 1)

        agent.stop()
        #expect(keySync.status.nextSync == nil)
        #expect(!keySync.isRunning)
        #expect(lines.contains { $0.contains("EXPOSURE \(exposure.id.short)") })
    }
}
