@testable import Agent
@testable import AgentBase
@testable import Console
import ENCore
@testable import Metrics
@testable import Simulation
import SystemIO
import Testing
import TestSupport

/// What the care home's page (`Board/carehome`) reads from each badge besides the fleet's figures: the label
/// staff know it by, since when an exposure has waited for someone, how stale its keys may get, and its uptime.
@Suite struct CareHomeMetricsTests {
    static let exposition = BadgeMetricsExposition(build: .init(version: "1.2.3", board: "virtual", transport: "virtual"))

    final class World {
        let directory = TemporaryDirectory()
        let sim: Simulation
        let badge: SimulatedBadge
        let control: AgentControl

        init(configuration: [String] = []) throws {
            sim = try Simulation(startUnixSeconds: Simulation.twoHoursBeforeMidnight, seed: 40, dataRoot: directory.path)
            var settings = Agent.Settings()
            for assignment in configuration { try settings.configuration.override(assignment) }
            badge = try sim.addBadge("badge", at: .origin, settings: settings)
            control = AgentControl(agent: badge.agent, stop: {})
        }

        var text: String { CareHomeMetricsTests.exposition.text(control.metrics()) }

        func lines(_ family: String) -> [String] {
            text.split(separator: "\n").map(String.init).filter { $0.hasPrefix(family + " ") || $0.hasPrefix(family + "{") }
        }
    }

    @Test("badge.label reaches enbeacon_badge_info, escaped as the text format asks, and status")
    func labelInMetricsAndStatus() throws {
        let world = try World(configuration: [#"badge.label=Zimmer 12 "Süd" \ B"#])
        world.sim.run(for: .seconds(30))
        let text = world.text
        try BadgeMetricsTests.validate(text)
        #expect(world.lines("enbeacon_badge_info") == [#"enbeacon_badge_info{label="Zimmer 12 \"Süd\" \\ B"} 1"#], "\(text)")
        let table = AgentConsole.commandTable(for: world.control)
        guard case .reply(.text(let status), _) = table.execute("status", channel: .socket),
              case .reply(.json(let json), _) = table.execute("status --json", channel: .socket) else {
            throw TestFailure("status answers")
        }
        #expect(status.hasPrefix(#"badge        Zimmer 12 "Süd" \ B"# + "\nclock "), "\(status)")
        #expect(json.hasPrefix(#"{"label":"Zimmer 12 \"Süd\" \\ B","clock":"#), "\(json)")
    }

    @Test("without a label: an empty one in the metrics, status says how to set it, JSON says null")
    func noLabel() throws {
        let world = try World()
        world.sim.run(for: .seconds(5))
        #expect(world.lines("enbeacon_badge_info") == [#"enbeacon_badge_info{label=""} 1"#])
        let table = AgentConsole.commandTable(for: world.control)
        guard case .reply(.text(let status), _) = table.execute("status", channel: .socket),
              case .reply(.json(let json), _) = table.execute("status --json", channel: .socket) else {
            throw TestFailure("status answers")
        }
        #expect(status.hasPrefix(#"badge        no label (config set badge.label "Room 12")"#), "\(status)")
        #expect(json.hasPrefix(#"{"label":null,"#), "\(json)")
    }

    @Test("a label is short text on one line: longer, or with a control character, is refused and nothing changes")
    func labelIsChecked() throws {
        var configuration = Configuration()
        try configuration.set("badge.label", to: "Room 12")
        try configuration.set("badge.label", to: String(repeating: "é", count: 64))
        for bad in [String(repeating: "x", count: 65), "Room\t12", "Room \u{1B}[2J", "Room\u{85}12"] {
            #expect(throws: ConfigurationError.self) { try configuration.set("badge.label", to: bad) }
        }
        #expect(configuration[.badgeLabel] == String(repeating: "é", count: 64))
        #expect(throws: ConfigurationError.self) { _ = try Configuration(parsing: "badge.label = a\u{7F}b\n") }
        #expect(try Configuration(parsing: "badge.label = Room 12 # by the lift\n")[.badgeLabel] == "Room 12")
    }

    /// A notified exposure waits for someone: the count and the time the earliest was detected; after the
    /// acknowledgement (the button, `indicator ack`) the count is 0 and the time absent, the exposure kept.
    @Test("an unacknowledged exposure is counted with its time until acknowledged")
    func unacknowledgedExposure() throws {
        let world = try World()
        world.sim.run(for: .seconds(30))
        #expect(world.lines("enbeacon_exposures_unacknowledged") == ["enbeacon_exposures_unacknowledged 0"])
        #expect(world.lines("enbeacon_unacknowledged_exposure_timestamp_seconds").isEmpty)
        func exposure(_ byte: UInt8, detectedAt: Int64) -> Exposure {
            let key = TemporaryExposureKey(keyData: Bytes16([UInt8](repeating: byte, count: 16))!,
                                           rollingStart: ENIntervalNumber(unixSeconds: detectedAt - 2 * 86_400)!.dayStart)
            return Exposure(id: ExposureID(key: key), date: UTCDay(unixSeconds: detectedAt - 2 * 86_400), durationMinutes: 30,
                            attenuationDurations: [30, 0, 0], typicalAttenuation: 50, riskScore: 100, transmissionRiskLevel: 4,
                            reportType: .confirmedTest, daysSinceOnsetOfSymptoms: 0, windows: [], detectedAt: detectedAt)
        }
        let now = world.badge.agent.clock.unixSeconds
        _ = try world.badge.agent.exposures.apply(found: [exposure(1, detectedAt: now - 600), exposure(2, detectedAt: now - 60)])
        #expect(world.lines("enbeacon_exposures_unacknowledged") == ["enbeacon_exposures_unacknowledged 2"])
        #expect(world.lines("enbeacon_unacknowledged_exposure_timestamp_seconds")
                == ["enbeacon_unacknowledged_exposure_timestamp_seconds \(now - 600)"])
        #expect(world.control.acknowledgeExposureSignal() == 2)
        #expect(world.lines("enbeacon_exposures_unacknowledged") == ["enbeacon_exposures_unacknowledged 0"])
        #expect(world.lines("enbeacon_unacknowledged_exposure_timestamp_seconds").isEmpty)
        #expect(world.lines("enbeacon_exposures") == ["enbeacon_exposures 2"], "acknowledged, still recorded")
    }

    @Test("the start time stays put as the agent runs; the key sync's allowed age follows health.max_sync_age_hours")
    func startTimeAndSyncAge() throws {
        let keys = TemporaryDirectory()
        try AtomicFile.write(Array(try SigningKey.generateP256().publicKeyPEM.utf8), to: keys.path + "/authority.pem")
        let world = try World(configuration: ["keyserver.style=folder", "keyserver.base_url=file://\(keys.path)/none/",
                                              "keyserver.public_key=\(keys.path)/authority.pem", "keyserver.key_id=999",
                                              "health.max_sync_age_hours=36"])
        let started = world.badge.agent.clock.unixSeconds
        world.sim.run(for: .seconds(3600))
        #expect(world.lines("enbeacon_start_time_seconds") == ["enbeacon_start_time_seconds \(started)"])
        #expect(world.lines("enbeacon_keysync_max_age_seconds") == ["enbeacon_keysync_max_age_seconds 129600"])
        let without = try World()
        #expect(without.lines("enbeacon_keysync_max_age_seconds").isEmpty, "no key server, no sync age")
    }
}
