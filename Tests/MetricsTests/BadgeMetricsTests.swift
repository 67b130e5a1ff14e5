@testable import Agent
@testable import Console
import ENCore
import EventLoop
import Glibc
import HCI
@testable import Metrics
@testable import Simulation
import Testing
import SystemIO
import TestSupport

/// A simulated badge's metrics as Prometheus reads them: well formed, the figures a fleet watches, nothing
/// private, and a controller that is gone shown within one interval (with `health` failing).
@Suite struct BadgeMetricsTests {
    static let exposition = BadgeMetricsExposition(build: .init(version: "1.2.3", board: "virtual", transport: "virtual"))

    final class World {
        let directory = TemporaryDirectory()
        let sim: Simulation
        let badge: SimulatedBadge
        let control: AgentControl

        init() throws {
            sim = try Simulation(startUnixSeconds: Simulation.twoHoursBeforeMidnight, seed: 27, dataRoot: directory.path)
            badge = try sim.addBadge("badge", at: .origin)
            sim.addPhone(at: RadioPosition(x: 1, y: 0))
            control = AgentControl(agent: badge.agent, stop: {})
        }

        func value(_ sample: String) -> Double? {
            let text = BadgeMetricsTests.exposition.text(control.metrics())
            guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(sample + " ") }) else { return nil }
            return Double(line.split(separator: " ").last ?? "")
        }
    }

    @Test func aRunningBadgeExposesWellFormedFiguresThatGrow() throws {
        let world = try World()
        world.sim.run(for: .seconds(1800))
        world.badge.agent.flush()
        let text = Self.exposition.text(world.control.metrics())
        try Self.validate(text)
        #expect(text.contains("enbeacon_build_info{version=\"1.2.3\",board=\"virtual\",transport=\"virtual\"} 1\n"))
        #expect(world.value("enbeacon_broadcasting") == 1)
        #expect(world.value("enbeacon_scanning") == 1)
        #expect(world.value("enbeacon_clock_trusted") == 1)
        #expect(world.value("enbeacon_controller_ready") == 1)
        #expect((world.value("enbeacon_rpi_rotations_total") ?? 0) >= 1)
        #expect((world.value("enbeacon_scans_total") ?? 0) >= 6)
        #expect((world.value("enbeacon_gaen_reports_total") ?? 0) > 0)
        #expect((world.value("enbeacon_sightings_stored_total") ?? 0) >= 6)
        #expect((world.value("enbeacon_storage_used_bytes") ?? 0) > 0)
        #expect((world.value("enbeacon_storage_available_bytes") ?? 0) > 0)
        #expect(world.value("enbeacon_keysync_configured") == 0)
        let scans = world.value("enbeacon_scans_total") ?? 0
        world.sim.run(for: .seconds(600))
        #expect((world.value("enbeacon_scans_total") ?? 0) > scans, "a counter that grows")
        #expect(world.control.health().isEmpty, "\(world.control.health())")
    }

    /// Never a key, an RPI or an address: the badge's own keys and addresses and every sighting's RPI are
    /// searched for in the output, in hex as the console shows them and in the address's text.
    @Test func noMetricCarriesAKeyAnRPIOrAnAddress() throws {
        let world = try World()
        world.sim.run(for: .seconds(1800))
        world.badge.agent.flush()
        let text = Self.exposition.text(world.control.metrics()).lowercased()
        let keys = world.control.ownKeys.map { $0.keyData.hex }
        let rpis = try world.control.sightings(since: 0, limit: 10_000).map { $0.rpi.hex }
        #expect(!keys.isEmpty && !rpis.isEmpty)
        for secret in keys + rpis {
            #expect(!text.contains(secret.lowercased()))
            #expect(!text.contains(String(secret.prefix(8)).lowercased()), "not even a prefix of \(secret)")
        }
        // No Bluetooth address, nor anything shaped like one (two hex digits, a colon, two hex digits).
        let bytes = Array(text.utf8)
        let hex = { (b: UInt8) in (0x30...0x39).contains(b) || (0x61...0x66).contains(b) }
        let addressLike = bytes.indices.dropLast(4).contains { i in
            hex(bytes[i]) && hex(bytes[i + 1]) && bytes[i + 2] == UInt8(ascii: ":") && hex(bytes[i + 3]) && hex(bytes[i + 4])
        }
        #expect(!addressLike)
    }

    /// The controller vanishes (its link drops and it answers nothing more): within one 15 s interval the
    /// metrics say it is off air and `health` fails, naming why.
    @Test func aControllerThatIsGoneShowsAsOffAirAndUnhealthy() throws {
        let world = try World()
        world.sim.run(for: .seconds(300))
        #expect(world.value("enbeacon_broadcasting") == 1)
        world.badge.controller.goSilent()
        world.badge.controller.dropLink()
        world.sim.run(for: .seconds(15))
        #expect(world.value("enbeacon_broadcasting") == 0)
        #expect(world.value("enbeacon_controller_ready") == 0)
        let failing = world.control.health()
        #expect(failing.map(\.check) == ["broadcasting"], "\(failing)")
        let table = AgentConsole.commandTable(for: world.control)
        guard case .reply(.failure(let text, let json), _) = table.execute("health", channel: .socket) else {
            throw TestFailure("health did not fail")
        }
        #expect(text.hasPrefix("unhealthy: 1 of 5 checks fail\nbroadcasting: not on air as the controller confirmed it"))
        #expect(json.hasPrefix(#"{"healthy":false,"failing":[{"check":"broadcasting","reason":"#))
    }

    /// The textfile: written at once and every interval, atomically, readable by node_exporter (0644); an
    /// empty path stops the writes and their timer.
    @Test func theTextfileIsRewrittenEveryIntervalAndStopsWhenUnset() throws {
        let world = try World()
        let path = world.directory.path + "/enbeacon.prom"
        let textfile = MetricsTextfile(loop: world.sim.loop, control: world.control, log: .silent, exposition: Self.exposition)
        var configuration = world.badge.agent.configuration
        try configuration.set("metrics.textfile", to: path)
        try configuration.set("metrics.interval_seconds", to: "15")
        textfile.configure(configuration)
        #expect(textfile.writes == 1)
        world.sim.run(for: .seconds(60))
        #expect(textfile.writes == 5)
        var status = stat()
        #expect(stat(path, &status) == 0 && status.st_mode & 0o777 == 0o644)
        let text = try #require(TextFile.read(path, limit: 1 << 20))
        try Self.validate(text)
        #expect(access(path + ".tmp", F_OK) != 0, "no temporary file left")

        try configuration.set("metrics.textfile", to: "")
        textfile.configure(configuration)
        world.sim.run(for: .seconds(60))
        #expect(textfile.writes == 5, "no write, and no timer, once unset")
    }

    /// What `promtool check metrics` asks, checked here too: names and labels well formed, the prefix, one
    /// HELP and one TYPE per family before its samples, `_total` exactly on counters, no timestamps.
    static func validate(_ text: String) throws {
        var declared: [String: String] = [:]
        var helped: Set<String> = []
        #expect(text.hasSuffix("\n"))
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).dropLast() {
            let words = line.split(separator: " ", maxSplits: 3)
            if line.hasPrefix("# HELP ") {
                let name = String(words[2])
                #expect(!helped.contains(name), "one HELP for \(name)")
                helped.insert(name)
            } else if line.hasPrefix("# TYPE ") {
                let name = String(words[2]), kind = String(words[3])
                #expect(declared[name] == nil && helped.contains(name), "one TYPE for \(name), after its HELP")
                #expect(name.hasPrefix("enbeacon_"))
                #expect(name.hasSuffix("_total") == (kind == "counter"), "\(name) is a \(kind)")
                #expect(name.allSatisfy { $0.isLetter && $0.isLowercase || $0.isNumber || $0 == "_" })
                declared[name] = kind
            } else {
                let name = String(line.prefix { $0 != "{" && $0 != " " })
                #expect(declared[name] != nil, "\(name) declared before its samples")
                let value = line.split(separator: " ")
                #expect(value.count == 2 || line.contains("{"), "one value, no timestamp: \(line)")
                #expect(Double(value.last ?? "") != nil, "\(line)")
            }
        }
    }
}
