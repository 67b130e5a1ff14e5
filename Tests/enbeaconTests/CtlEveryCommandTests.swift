import Foundation
import Testing
import TestSupport

/// Every console command through `enbeacon ctl --json` against one running agent on the virtual board,
/// each answer parsed as the one JSON document scripts rely on (`docs/cli.md`). The agent has a
/// config file and a `file://` key server holding a real export (google-ens-server's test file, with its
/// public key), so `sync now` downloads, verifies and matches for real. The test fails if the agent has
/// a command this list does not exercise.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct CtlEveryCommandTests {
    /// google-ens-server's export and the public key it verifies with, relative to Tests/Fixtures.
    static let fixtures = TestFixtures.gaenExports + "/google-ens-server/"

    final class Setup {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("enbeacon-every-\(UUID().uuidString)").path
        var data: String { root + "/data" }
        var config: String { root + "/enbeacon.conf" }
        var server: String { root + "/server" }
        let agent: ChildProcess

        init() throws {
            try FileManager.default.createDirectory(atPath: root + "/server", withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: try TestFixtures.path(fixtures + "testExport-2-records-1-of-1.zip"),
                                             toPath: root + "/server/export-1.zip")
            let publicKey = try TestFixtures.path(fixtures + "public.pem")
            try "export-1.zip\n".write(toFile: root + "/server/index.txt", atomically: false, encoding: .utf8)
            try """
                # written by CtlEveryCommandTests
                keyserver.style = folder
                keyserver.base_url = file://\(root)/server/
                keyserver.public_key = \(publicKey)
                keyserver.key_id = some_id
                keyserver.key_version = 1
                risk.threshold = 3

                """.write(toFile: root + "/enbeacon.conf", atomically: false, encoding: .utf8)
            agent = try ChildProcess(executable: Enbeacon.binary.path,
                                     arguments: ["run", "--data", root + "/data", "--config", root + "/enbeacon.conf",
                                                 "--set", "match.batch_keys=100", "--seconds", "170", "--console", "none"],
                                     name: "agent")
            try agent.wait(for: "the controller", timeout: 30) { agent.stderr.contains("controller ready") }
        }

        deinit {
            agent.stop()
            try? FileManager.default.removeItem(atPath: root)
        }

        struct Answer {
            var status: Int32
            var json: [String: Any]
            var stderr: String
        }

        /// `enbeacon ctl --data DIR --json WORDS…`: exit 0 with one JSON document on stdout, or exit 1 with
        /// a JSON `{"error":…}` on stderr.
        func ctl(_ words: String) throws -> Answer {
            let r = try Enbeacon.run(["ctl", "--data", data, "--json"] + words.split(separator: " ").map(String.init))
            let text = r.status == 0 ? r.stdout : r.stderr
            let object = try? JSONSerialization.jsonObject(with: Data(text.utf8))
            guard let json = object as? [String: Any] else {
                throw SessionError("ctl \(words): exit \(r.status), not one JSON object:\nstdout: \(r.stdout)\nstderr: \(r.stderr)")
            }
            return Answer(status: r.status, json: json, stderr: r.stderr)
        }

        func ok(_ words: String) throws -> [String: Any] {
            let answer = try ctl(words)
            try #require(answer.status == 0, "ctl \(words): \(answer.json)")
            return answer.json
        }

        func refused(_ words: String) throws -> String {
            let answer = try ctl(words)
            try #require(answer.status == 1, "ctl \(words) was not refused: \(answer.json)")
            return try #require(answer.json["error"] as? String, "ctl \(words): \(answer.json)")
        }
    }

    @Test func everyCommandAnswersOneJSONDocument() throws {
        let s = try Setup()
        var exercised: Set<String> = []
        func ok(_ command: String, _ arguments: String = "") throws -> [String: Any] {
            exercised.insert(command)
            return try s.ok(arguments.isEmpty ? command : command + " " + arguments)
        }
        func refused(_ command: String, _ arguments: String = "") throws -> String {
            exercised.insert(command)
            return try s.refused(arguments.isEmpty ? command : command + " " + arguments)
        }

        // help: the list this test must cover.
        let help = try ok("help")
        let commands = try #require(help["commands"] as? [[String: Any]]).compactMap { $0["name"] as? String }
        #expect(commands.count >= 20, "\(commands)")
        #expect(try ok("help", "sync now")["usage"] as? String == "sync now")

        let status = try ok("status")
        #expect(status["controller"] as? String == "ready")
        #expect(status["advertising"] as? Bool == true && status["exposureNotification"] as? Bool == true)
        #expect((status["clock"] as? [String: Any])?["trusted"] as? Bool == true)
        #expect((status["rpiAgeSeconds"] as? Int).map { $0 >= 0 && $0 < 60 } == true)
        #expect((status["nextRotationSeconds"] as? Int).map { $0 > 0 && $0 <= 1200 } == true)
        #expect(status["scans"] as? Int ?? 0 >= 1)

        // time
        let time = try ok("time")
        #expect(abs((time["unix"] as? Int ?? 0) - Int(Date().timeIntervalSince1970)) <= 5)
        #expect(try ok("time trust")["trusted"] as? Bool == true)
        // Only refusals here: this machine's clock is not the test's to set (see ConsoleAgentCommandsTests).
        #expect(try refused("time set", "2026-11-22T14:05:00").contains("give the time zone"))
        #expect(try refused("time set", "2199-01-01T00:00:00Z").contains("expected 2020-2099"))

        // keys: redacted; revealed and exported only with --yes on the socket.
        let keys = try #require(try ok("keys")["keys"] as? [[String: Any]])
        #expect(keys.count == 1 && keys[0]["key"] == nil && keys[0]["rollingPeriod"] as? Int == 144)
        #expect(try s.refused("keys --reveal").contains("--yes"))
        let revealed = try #require(try s.ok("keys --reveal --yes")["keys"] as? [[String: Any]])
        let tekHex = try #require(revealed.first?["key"] as? String)
        #expect(tekHex.count == 32)
        #expect(try refused("keys export").contains("--yes"))
        let published = try #require(try ok("keys export", "--yes")["temporaryExposureKeys"] as? [[String: Any]])
        #expect(published.count == 1)
        let exportedKey = try #require((published.first?["key"] as? String).flatMap { Data(base64Encoded: $0) })
        #expect(exportedKey.map { String(format: "%02x", $0) }.joined() == tekHex)
        #expect(published.first?["rollingStartNumber"] as? Int == keys[0]["rollingStart"] as? Int)

        // keys share: without the health authority's settings it says which are missing, and sends nothing.
        #expect(try refused("keys share", "12345678").contains("--yes"))
        #expect(try refused("keys share", "12345678 --yes").hasPrefix("keys share needs share.verification_url, share.api_key"))
        let share = try ok("keys share status")
        #expect(share["phase"] as? String == "notConfigured" && share["token"] is NSNull, "\(share)")
        #expect(try refused("keys share cancel", "--yes") == "no share is under way")
        #expect((try s.ok("status")["share"] as? [String: Any])?["phase"] as? String == "notConfigured")

        // What the badge recorded.
        #expect(try ok("sightings", "--limit 5")["sightings"] is [Any])
        #expect(try refused("sightings", "--limit 0").contains("--limit"))
        let storage = try ok("storage")
        #expect(storage["bytes"] is Int && storage["records"] is Int && storage["pendingSightings"] is Int)
        #expect((try ok("exposures")["exposures"] as? [Any])?.isEmpty == true)
        #expect((try s.ok("exposures --daily")["dailySummaries"] as? [Any])?.isEmpty == true)

        // Key sync: a real download, verification and match of the export on the file:// server.
        let sync = try ok("sync")
        #expect((sync["server"] as? String)?.contains("/server/index.txt") == true, "\(sync)")
        let ran = try ok("sync now")
        #expect(ran["outcome"] as? String == "succeeded", "\(ran)")
        #expect(ran["listed"] as? Int == 1 && ran["processed"] as? Int == 1, "\(ran)")
        #expect(ran["keys"] as? Int == 2 && ran["matchedKeys"] as? Int == 0, "\(ran)")
        #expect(try ok("sync")["lastSuccess"] is Int)
        let health = try ok("health")
        #expect(health["healthy"] as? Bool == true && (health["failing"] as? [Any])?.isEmpty == true, "\(health)")

        // config: validated, persisted, refusals change nothing.
        let rows = try #require(try ok("config list")["config"] as? [[String: Any]])
        let byKey = Dictionary(uniqueKeysWithValues: rows.compactMap { row in (row["key"] as? String).map { ($0, row) } })
        #expect(byKey["risk.threshold"]?["value"] as? String == "3" && byKey["risk.threshold"]?["source"] as? String == "file")
        #expect(byKey["match.batch_keys"]?["source"] as? String == "override")
        #expect(try ok("config get", "keyserver.key_id")["value"] as? String == "some_id")
        #expect(try refused("config get", "risk.treshold").contains("unknown key"))
        #expect(try ok("config set", "risk.threshold 5")["value"] as? String == "5")
        #expect(try String(contentsOfFile: s.config, encoding: .utf8).contains("risk.threshold = 5\n"))
        #expect(try refused("config set", "risk.threshold 9999").contains("0-4096"))
        #expect(try ok("config get", "risk.threshold")["value"] as? String == "5", "a refused value changes nothing")

        // SIGHUP reads the file again; a broken file changes nothing.
        var text = try String(contentsOfFile: s.config, encoding: .utf8)
        text = text.replacingOccurrences(of: "risk.threshold = 5", with: "risk.threshold = 8")
        try text.write(toFile: s.config, atomically: true, encoding: .utf8)
        s.agent.send(SIGHUP)
        try s.agent.wait(for: "the reload", timeout: 10) { s.agent.stderr.contains("SIGHUP: reloaded") }
        #expect(try s.ok("config get risk.threshold")["value"] as? String == "8")
        try (text + "risk.treshold = 1\n").write(toFile: s.config, atomically: true, encoding: .utf8)
        s.agent.send(SIGHUP)
        try s.agent.wait(for: "the refused reload", timeout: 10) { s.agent.stderr.contains("keeping the configuration in force") }
        #expect(try s.ok("config get risk.threshold")["value"] as? String == "8")

        // Radio: off and on again; the controller's identity; a reset it recovers from.
        let off = try ok("en off")
        #expect(off["exposureNotification"] as? Bool == false && off["advertising"] as? Bool == false)
        #expect(try s.ok("status")["advertising"] as? Bool == false)
        // The answer says what the controller has confirmed: advertising comes a round trip or two later.
        let on = try ok("en on")
        #expect(on["exposureNotification"] as? Bool == true)
        let onAirBy = Date().addingTimeInterval(10)
        var onAir = false
        repeat {
            onAir = try s.ok("status")["advertising"] as? Bool == true
            if !onAir { Thread.sleep(forTimeInterval: 0.05) }
        } while !onAir && Date() < onAirBy
        #expect(onAir, "on air again after en on")
        let hci = try ok("hci info")
        #expect(hci["controller"] as? String == "ready")
        #expect((hci["address"] as? String)?.count == 17)
        #expect((hci["version"] as? [String: Any])?["hciVersion"] is Int)
        #expect(hci["features"] is [String])
        #expect(((hci["counters"] as? [String: Any])?["commandsSent"] as? Int ?? 0) > 5)
        #expect(try ok("hci reset")["reset"] as? Bool == true)
        // Polled: the reset and re-initialisation take a few round trips on the loop.
        let deadline = Date().addingTimeInterval(10)
        var back: [String: Any] = [:]
        repeat {
            back = try s.ok("status")
            if back["controller"] as? String == "ready" && back["advertising"] as? Bool == true { break }
            Thread.sleep(forTimeInterval: 0.05)
        } while Date() < deadline
        #expect(back["controller"] as? String == "ready" && back["advertising"] as? Bool == true,
                "the badge is back on air after the reset: \(back)")

        // live: JSON lines of the virtual board's phones, within seconds.
        exercised.insert("live")
        let live = try ChildProcess(executable: Enbeacon.binary.path, arguments: ["ctl", "--data", s.data, "--json", "live"],
                                    name: "ctl live")
        defer { live.stop() }
        try live.wait(for: "a live line", timeout: 15) { live.stdout.contains("\n") }
        let line = try #require(live.stdout.split(separator: "\n").first)
        let beacon = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect((beacon["rpi"] as? String)?.count == 32 && beacon["rssi"] is Int)
        #expect(["immediate", "near", "medium", "far"].contains(beacon["proximity"] as? String ?? ""))
        live.stop()

        // The virtual board's indicator: on air, a find, a test, nothing to acknowledge.
        let indicator = try ok("indicator")
        #expect(indicator["state"] as? String == "onAir" && indicator["present"] as? Bool == true, "\(indicator)")
        #expect((indicator["led"] as? [String: Any])?["location"] as? String == "virtual")
        #expect((status["indicator"] as? [String: Any])?["pattern"] as? String == "one short flash every 5 s")
        #expect(try ok("find")["seconds"] as? Int == 60)
        #expect(try s.ok("indicator")["signal"] as? String == "find")
        #expect(try s.ok("find stop")["stopped"] as? Bool == true)
        let test = try ok("indicator test")
        #expect((test["parts"] as? [[String: Any]])?.count == 9 && test["seconds"] as? Double == 34.1, "\(test)")
        #expect(try ok("indicator ack")["acknowledged"] as? Int == 0)

        // radio calibrate measures for at least 10 s (RadioCalibrateTests measures on the virtual air); here its
        // refusals: a reference RSSI that is no number, and saving without consent or before any measurement.
        #expect(try refused("radio calibrate", "loud").contains("RSSI_AT_1M"))
        #expect(try refused("radio calibrate save").contains("--yes"))
        #expect(try refused("radio calibrate save", "--yes").contains("nothing measured yet"))

        // quit is for the agent's own console; wipe last, as it deletes the key exported above.
        #expect(try refused("quit").contains("own console"))
        #expect(try refused("wipe").contains("--yes"))
        let wiped = try ok("wipe", "--yes")
        #expect(wiped["wiped"] as? Bool == true && wiped["keys"] as? Int == 1)
        let fresh = try #require(try s.ok("keys --reveal --yes")["keys"] as? [[String: Any]])
        #expect(fresh.count == 1 && fresh[0]["key"] as? String != tekHex, "a fresh key replaced the wiped one")

        #expect(Set(commands).subtracting(exercised).isEmpty, "not exercised: \(Set(commands).subtracting(exercised).sorted())")
        s.agent.terminate()
        #expect(s.agent.waitForExit(timeout: 10) == 0)
        // TEKs never appear in the log.
        #expect(!s.agent.stderr.contains(tekHex), "a TEK in the agent's log")
    }
}
