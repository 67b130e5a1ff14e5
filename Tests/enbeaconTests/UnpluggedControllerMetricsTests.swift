import Foundation
import Testing

/// A badge whose controller goes away, as a fleet's monitoring sees it: the agent on a Bumble controller over
/// H4/TCP, the controller's process killed (the connection drops as a USB dongle's does when pulled). Within
/// one scrape interval (the textfile's 15 s default) both ways out say `enbeacon_broadcasting 0`, and
/// `ctl health` exits 1 saying why, and the log's line names its event. `Board/prometheus/alerts-test.yml` then fires EnbeaconOffAir on that series.
@Suite struct UnpluggedControllerMetricsTests {
    @Test(.enabled(if: BumbleSession.bumbleAvailable, "needs Bumble: pip install -r Tools/interop/requirements.txt"))
    func aControllerThatVanishesIsOffAirInOneScrapeAndUnhealthy() throws {
        let controller = try ChildProcess(
            executable: "/usr/bin/env",
            arguments: ["python3", "-u", BumbleSession.interopTools.appendingPathComponent("bumble_controllers.py").path,
                        "--count", "1", "--seconds", "120"],
            name: "bumble_controllers")
        defer { controller.stop() }
        var port = 0
        try controller.wait(for: "the controller's port", timeout: 30) {
            for line in controller.stdout.split(separator: "\n") {
                if let object = jsonObject(line), let ports = object["ports"] as? [Int], ports.count == 1 { port = ports[0]; return true }
            }
            return false
        }
        let textfile = FileManager.default.temporaryDirectory.appendingPathComponent("enbeacon-\(UUID().uuidString).prom").path
        defer { try? FileManager.default.removeItem(atPath: textfile) }
        let agent = try RunningAgent(extraArguments: ["--transport", "tcp:127.0.0.1:\(port)",
                                                      "--set", "metrics.listen=127.0.0.1:0",
                                                      "--set", "metrics.textfile=\(textfile)"])
        defer { try? FileManager.default.removeItem(atPath: agent.directory) }
        try agent.process.wait(for: "the metrics endpoint", timeout: 30) { agent.process.stderr.contains("metrics: serving http://") }
        let line = try #require(agent.process.stderr.split(separator: "\n").first { $0.contains("metrics: serving http://127.0.0.1:") })
        let metricsPort = try #require(UInt16(line.split(separator: ":").last?.split(separator: "/").first ?? ""))
        func scraped() -> String? {
            guard let answer = try? MetricsEndpointTests.exchange(port: metricsPort, "GET /metrics HTTP/1.1\r\n\r\n") else { return nil }
            return Self.value(of: "enbeacon_broadcasting", in: answer)
        }
        func written() -> String? {
            (try? String(contentsOfFile: textfile, encoding: .utf8)).flatMap { Self.value(of: "enbeacon_broadcasting", in: $0) }
        }

        try agent.process.wait(for: "on air, as scraped and as written", timeout: 40) {
            scraped() == "1" && written() == "1"
        }
        let healthy = try agent.ctl(["health"])
        #expect(healthy.status == 0, "\(healthy.stderr)")

        // Unplugged: the controller's process dies without a word, its socket closes.
        kill(controller.processIdentifier, SIGKILL)
        let pulled = Date()
        var scrapedOffAir: TimeInterval?
        var writtenOffAir: TimeInterval?
        while Date().timeIntervalSince(pulled) < 20 && (scrapedOffAir == nil || writtenOffAir == nil) {
            let elapsed = Date().timeIntervalSince(pulled)
            if scrapedOffAir == nil, scraped() == "0" { scrapedOffAir = elapsed }
            if writtenOffAir == nil, written() == "0" { writtenOffAir = elapsed }
            Thread.sleep(forTimeInterval: 0.1)  // polling, as a scraper does; nothing waits on it
        }
        print("controller unplugged: /metrics said off air after \(scrapedOffAir.map { "\(Int($0 * 1000)) ms" } ?? "never"), "
              + "the textfile after \(writtenOffAir.map { "\(Int($0 * 1000)) ms" } ?? "never") (interval 15 s)")
        #expect(try #require(scrapedOffAir) < 15)
        #expect(try #require(writtenOffAir) <= 16, "one textfile interval, plus the turn that writes it")

        let unhealthy = try agent.ctl(["health"])
        #expect(unhealthy.status == 1)
        #expect(unhealthy.stderr.contains("broadcasting: not on air as the controller confirmed it (the controller is not ready)"),
                "\(unhealthy.stderr)")
        let answer = try MetricsEndpointTests.exchange(port: metricsPort, "GET /metrics HTTP/1.1\r\n\r\n")
        #expect(Self.value(of: "enbeacon_controller_ready", in: answer) == "0")
        #expect(agent.process.status == nil, "the agent keeps running, waiting for its controller")
        let lost = agent.process.stderr.split(separator: "\n").filter { $0.contains("controller link lost: ") }
        #expect(lost.count == 1 && lost.allSatisfy { $0.hasSuffix(" event=controller_lost") },
                "one line says so, with the event name a journal query looks for: \(lost)")
    }

    /// The value of an unlabelled sample in Prometheus' text format.
    static func value(of family: String, in exposition: String) -> String? {
        for line in exposition.split(separator: "\n") where line.hasPrefix(family + " ") {
            return String(line.dropFirst(family.count + 1))
        }
        return nil
    }
}
