@testable import AgentBase
import ENCore
import EventLoop
import Foundation
@testable import KeyDownload
import KeySyncTestSupport
import Testing
import TestSupport
import Network

/// Key sync against real servers on 127.0.0.1: Tools/keyserver/keyserver.py (HTTP, faults on demand),
/// `openssl s_server -WWW` (HTTPS with a throw-away CA), and file:// folders. Sightings are derived in the
/// test from the keys the exports carry; the exports are signed by a key made in the test.
@Suite(.serialized) struct KeySyncEndToEndTests {
    static func requests(_ logPath: String) -> [String] {
        ((try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    @Test func httpSyncTakesNewLinesOnlyRetriesDropsRejectsForgeriesAndNeverDuplicates() throws {
        let world = try KeySyncWorld()
        let k1 = world.meet(hour: 8), k2 = world.meet(hour: 10), forged = world.meet(hour: 12)
        let k4 = world.meet(hour: 14), alsoMet = world.meet(hour: 16)
        world.publish(world.export([k1.key] + world.strangers(2_000)), at: "v1/1-a.zip")
        world.publish(world.export([forged.key], signer: world.impostor), at: "v1/2-forged.zip")
        world.publish(world.export([k2.key] + world.strangers(10)), at: "v1/3-b.zip")
        world.publishIndex(["v1/1-a.zip", "v1/2-forged.zip", "v1/3-b.zip"])
        let serverLog = world.folder.path + "/requests.log"
        let (server, port) = try TestServers.keyServer(root: world.root, arguments: [
            "--log", serverLog, "--drop", "/v1/3-b.zip=2",
        ])
        defer { server.kill() }
        try world.makeKeySync(["keyserver.index_url = http://127.0.0.1:\(port)/index.txt"])

        // Run 1: three new lines; the forged file is rejected, the third survives two dropped connections.
        let first = try world.syncNow()
        #expect(first.outcome == .succeeded)
        #expect((first.listed, first.new, first.processed, first.rejected, first.retries) == (3, 3, 2, 1, 2))
        #expect(first.keys == 2_012)
        #expect(first.matchedKeys == 2)
        #expect(first.newExposures == 2)
        // 2,012 keys at 50 per slice: the loop got its turn between slices.
        #expect(first.matchSlices >= 2_012 / 50)
        #expect(world.exposure(of: k1).count == 1)
        #expect(world.exposure(of: k2).count == 1)
        #expect(world.exposure(of: forged).isEmpty, "keys of an unverified file must never be used")
        #expect(world.logLines.contains { $0.contains("rejected v1/2-forged.zip: signature by 999-v1 does not verify") })
        #expect(Self.requests(serverLog) == ["/index.txt", "/v1/1-a.zip", "/v1/2-forged.zip",
                                             "/v1/3-b.zip", "/v1/3-b.zip", "/v1/3-b.zip"])
        // Default risk configuration: 35 min at 50 dB, 2 days ago, transmission risk 4 → 4 × 7 × 8 × 5.
        let exposure = try #require(world.exposure(of: k1).first)
        #expect(exposure.riskScore == 1120)
        #expect(exposure.durationMinutes == 35)
        #expect(exposure.attenuationDurations == [30, 0, 0])
        #expect(exposure.date == UTCDay(world.keyDay))
        #expect(world.notifications.count == 2)

        // Run 2: two new lines. One repeats k1 (and the whole first file under a new name), one revokes k2.
        world.publish(world.export([k4.key, k1.key]), at: "v1/4-c.zip")
        world.publish(world.export([], revised: [DiagnosisKey(tek: k2.tek, reportType: .revoked)]), at: "v1/5-revoke.zip")
        world.publish(try Data(contentsOf: URL(fileURLWithPath: world.root + "/v1/1-a.zip")).map { $0 }, at: "v1/6-a-again.zip")
        world.publishIndex(["v1/1-a.zip", "v1/2-forged.zip", "v1/3-b.zip", "v1/4-c.zip", "v1/5-revoke.zip",
                            "v1/6-a-again.zip"])
        let before = Self.requests(serverLog).count
        let second = try world.syncNow()
        #expect(second.outcome == .succeeded)
        #expect((second.listed, second.new, second.processed) == (6, 3, 3))
        #expect(Array(Self.requests(serverLog).dropFirst(before)) == ["/index.txt", "/v1/4-c.zip", "/v1/5-revoke.zip",
                                                                     "/v1/6-a-again.zip"])
        #expect(second.newExposures == 1)
        #expect(world.exposure(of: k1).count == 1, "a key seen again must not add an exposure")
        #expect(world.exposure(of: k4).count == 1)
        #expect(world.exposure(of: k2).isEmpty, "a revoked key's exposure must go")
        #expect(world.exposure(of: alsoMet).isEmpty)
        #expect(world.exposures.exposures.count == 2)
        #expect(world.notifications.count == 3, "notify.command runs once per new exposure")

        // Run 3: nothing new, nothing but the index fetched.
        let third = try world.syncNow()
        #expect((third.outcome, third.new) == (.succeeded, 0))
        #expect(Self.requests(serverLog).last == "/index.txt")
        #expect(Self.requests(serverLog).count == before + 5)

        // What notify.command read: one JSON object per exposure, with the record's figures, no key.
        let documents = world.notifications.compactMap { try? JSONValue.parse($0) }
        #expect(documents.count == 3)
        let ids = Set(documents.compactMap { document -> String? in
            guard case .object(let m) = document, case .string(let id)? = m["id"] else { return nil }
            return id
        })
        #expect(ids == [k1.id.hex, k2.id.hex, k4.id.hex])
        for key in [k1, k2, forged, k4] {
            let hex = key.tek.keyData.hex
            #expect(!world.notifications.contains { $0.contains(hex) })
            #expect(!world.logLines.contains { $0.contains(hex) }, "no TEK material in the log")
        }
        // The exposures file survives a restart and stays 0600.
        let reopened = ExposureLog(dataDirectory: world.dataDirectory, log: .silent)
        #expect(reopened.exposures == world.exposures.exposures)
        let mode = try FileManager.default.attributesOfItem(atPath: reopened.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    @Test func droppedConnectionsBeyondTheRetriesWaitForTheNextPeriodWithTheCursorKept() throws {
        let world = try KeySyncWorld()
        let k1 = world.meet(hour: 8), k2 = world.meet(hour: 11)
        world.publish(world.export([k1.key]), at: "a.zip")
        world.publish(world.export([k2.key]), at: "b.zip")
        world.publishIndex(["a.zip", "b.zip"])
        let serverLog = world.folder.path + "/requests.log"
        let (server, port) = try TestServers.keyServer(root: world.root, arguments: [
            "--log", serverLog, "--drop", "/b.zip=3", "--fail", "/index.txt=1:503",
        ])
        defer { server.kill() }
        let extra = ["keyserver.index_url = http://127.0.0.1:\(port)/index.txt"]
        let twoTries = RetryPolicy(attempts: 2, firstDelay: .milliseconds(10), maximumDelay: .milliseconds(50))
        try world.makeKeySync(extra, retry: twoTries)

        let first = try world.syncNow()
        guard case .failed(let reason) = first.outcome else {
            Issue.record("expected the run to fail, got \(first.outcome)")
            return
        }
        #expect(reason.hasPrefix("b.zip: "))
        #expect(world.keySync.status.lastError == reason)
        #expect(world.exposure(of: k1).count == 1)
        #expect(world.exposure(of: k2).isEmpty)
        #expect(Self.requests(world.folder.path + "/requests.log") == ["/index.txt", "/index.txt", "/a.zip", "/b.zip", "/b.zip"])
        let cursorText = try String(contentsOfFile: world.dataDirectory + "/keysync", encoding: .utf8)
        #expect(cursorText.contains("last_line a.zip\n"))
        #expect(!cursorText.contains("last_success"))

        // The next period, in a restarted agent: only b.zip is fetched, and it comes through on its second try.
        try world.makeKeySync(extra, retry: twoTries)
        let second = try world.syncNow()
        #expect(second.outcome == .succeeded)
        #expect(second.retries == 1)
        #expect(Array(Self.requests(serverLog).suffix(3)) == ["/index.txt", "/b.zip", "/b.zip"])
        #expect(world.exposure(of: k2).count == 1)
        #expect(world.exposures.exposures.count == 2)
        #expect(try String(contentsOfFile: world.dataDirectory + "/keysync", encoding: .utf8).contains("last_line b.zip\n"))
    }

    @Test func goneAndOversizedFilesAreSkipped() throws {
        let world = try KeySyncWorld()
        let met = world.meet()
        world.publish(world.export(world.strangers(6_000)), at: "big.zip")
        world.publish(world.export([met.key]), at: "small.zip")
        world.publishIndex(["gone.zip", "big.zip", "small.zip"])
        let (server, port) = try TestServers.keyServer(root: world.root)
        defer { server.kill() }
        try world.makeKeySync(["keyserver.index_url = http://127.0.0.1:\(port)/index.txt",
                               "sync.max_file_bytes = 65536"])
        let report = try world.syncNow()
        #expect((report.outcome, report.skipped, report.processed, report.retries) == (.succeeded, 2, 1, 0))
        #expect(world.exposure(of: met).count == 1)
        #expect(world.logLines.contains { $0.contains("skipping gone.zip: HTTP status 404") })
        #expect(world.logLines.contains {
            $0.contains("skipping big.zip: response larger than 65536 bytes, aborted (sync.max_file_bytes)")
        })
    }

    /// Figures, not assertions on time: one export of 100,000 keys (one of them met) against 10,000 stored
    /// sightings, over HTTP, in slices of 200 keys.
    @Test func figuresForALargeExport() throws {
        let world = try KeySyncWorld()
        let met = world.meet()
        for hour in 0..<24 { _ = (0..<7).map { _ in world.meet(hour: hour, minutes: 295) } }
        let keys = world.strangers(99_999) + [met.key]
        world.publish(world.export(keys), at: "big.zip")
        world.publishIndex(["big.zip"])
        let (server, port) = try TestServers.keyServer(root: world.root)
        defer { server.kill() }
        try world.makeKeySync(["keyserver.index_url = http://127.0.0.1:\(port)/index.txt", "match.batch_keys = 200"])
        let stored = try world.store.usage().storedSightings
        let report = try world.syncNow()
        #expect(report.outcome == .succeeded)
        #expect(report.keys == 100_000 && report.matchedKeys >= 1)
        #expect(report.matchSlices >= 500)
        #expect(world.exposure(of: met).count == 1)
        func ms(_ d: Duration) -> String { "\(d.components.seconds * 1000 + d.components.attoseconds / 1_000_000_000_000_000) ms" }
        print("key sync figures: \(report.keys) keys, \(report.bytes) bytes, \(stored) sightings: "
              + "download \(ms(report.downloadTime)), verify \(ms(report.verifyTime)), match \(ms(report.matchTime)) "
              + "in \(report.matchSlices) slices")
    }

    @Test func httpsNeedsTheConfiguredCA() throws {
        let world = try KeySyncWorld()
        let met = world.meet()
        world.publish(world.export([met.key] + world.strangers(100)), at: "exports/day.zip")
        world.publishIndex(["exports/day.zip"])
        let tls = try ThrowAwayCA(in: world.folder.path)
        let (server, port) = try tls.startOpenSSLServer(root: world.root)
        defer { server.kill() }
        let index = "keyserver.index_url = https://127.0.0.1:\(port)/index.txt"
        let oneTry = RetryPolicy(attempts: 1, firstDelay: .milliseconds(10), maximumDelay: .milliseconds(10))

        try world.makeKeySync([index], retry: oneTry)
        let refused = try world.syncNow()
        guard case .failed(let reason) = refused.outcome else {
            Issue.record("a server signed by an unknown CA must be refused, got \(refused.outcome)")
            return
        }
        #expect(reason.lowercased().contains("certificate"))
        #expect(world.exposures.exposures.isEmpty)

        try world.makeKeySync([index, "keyserver.ca_file = \(tls.caFile)"], retry: oneTry)
        let accepted = try world.syncNow()
        #expect(accepted.outcome == .succeeded)
        #expect(world.exposure(of: met).count == 1)
    }

    @Test func fileFolderSyncsLikeAServer() throws {
        let world = try KeySyncWorld()
        let k1 = world.meet(), k2 = world.meet(hour: 15)
        world.publish(world.export([k1.key]), at: "one.zip")
        world.publishIndex(["one.zip"])
        try world.makeKeySync(["keyserver.style = folder", "keyserver.base_url = file://\(world.root)"])
        #expect(try world.syncNow().outcome == .succeeded)
        #expect(world.exposure(of: k1).count == 1)

        world.publish(world.export([k2.key]), at: "two.zip")
        world.publishIndex(["one.zip", "two.zip"])
        let second = try world.syncNow()
        #expect((second.new, second.processed, second.newExposures) == (1, 1, 1))
        #expect(world.exposures.exposures.count == 2)
    }

    @Test func multiFileBatchCountsOnlyOnceComplete() throws {
        let world = try KeySyncWorld()
        let k1 = world.meet(), k2 = world.meet(hour: 15)
        world.publish(world.export([k1.key], batch: (1, 2)), at: "batch-1.zip")
        world.publish(world.export([k2.key], batch: (2, 2)), at: "batch-2.zip")
        world.publishIndex(["batch-1.zip"])
        try world.makeKeySync(["keyserver.style = folder", "keyserver.base_url = file://\(world.root)/"])
        let first = try world.syncNow()
        // The lone half of a batch is never matched; a warning says it was ignored.
        #expect(first.keys == 0)
        #expect(world.exposures.exposures.isEmpty)
        #expect(world.logLines.contains { $0.contains("incomplete") })

        world.publish(world.export([k1.key], batch: (1, 2)), at: "batch-1b.zip")
        world.publishIndex(["batch-1.zip", "batch-1b.zip", "batch-2.zip"])
        let second = try world.syncNow()
        #expect(second.keys == 2)
        #expect(world.exposures.exposures.count == 2)
    }

    @Test func coronaWarnAppDaysAreFetchedOnce() throws {
        let world = try KeySyncWorld()
        let k1 = world.meet(), k2 = world.meet(hour: 15)
        let days = "version/v1/diagnosis-keys/country/DE/date"
        let day1 = UTCDay(world.keyDay).description
        let day2 = UTCDay(daysSinceEpoch: UTCDay(world.keyDay).daysSinceEpoch + 1).description
        world.publish(world.export([k1.key]), at: "\(days)/\(day1)")
        // http.server answers ".../date" with a redirect to ".../date/", whose index.html is the day list.
        world.publish(Array("[\"\(day1)\"]".utf8), at: "\(days)/index.html")
        let serverLog = world.folder.path + "/requests.log"
        let (server, port) = try TestServers.keyServer(root: world.root, arguments: ["--log", serverLog])
        defer { server.kill() }
        try world.makeKeySync(["keyserver.style = cwa", "keyserver.base_url = http://127.0.0.1:\(port)/",
                               "keyserver.country = DE"])
        #expect(try world.syncNow().outcome == .succeeded)
        #expect(world.exposure(of: k1).count == 1)

        world.publish(world.export([k2.key]), at: "\(days)/\(day2)")
        world.publish(Array("[\"\(day1)\",\"\(day2)\"]".utf8), at: "\(days)/index.html")
        let before = Self.requests(serverLog).count
        let second = try world.syncNow()
        #expect((second.outcome, second.new) == (.succeeded, 1))
        #expect(Array(Self.requests(serverLog).dropFirst(before)).filter { $0.hasSuffix(day1) || $0.hasSuffix(day2) }
                == ["/\(days)/\(day2)"])
        #expect(world.exposure(of: k2).count == 1)
    }

    @Test func withoutAKeyServerNothingHappensAndItIsSaidOnce() throws {
        let world = try KeySyncWorld()
        try world.makeKeySync([])
        #expect(world.keySync.settings.server == nil)
        world.keySync.start()
        world.keySync.start()
        #expect(world.keySync.syncNow() == .notConfigured)
        #expect(world.keySync.status.phase == .notConfigured)
        #expect(world.logLines.filter { $0.contains("no key server configured") }.count == 1)
        world.keySync.stop()
    }

    @Test func periodicSyncRunsWithoutBeingAsked() throws {
        let world = try KeySyncWorld()
        let met = world.meet()
        world.publish(world.export([met.key]), at: "one.zip")
        world.publishIndex(["one.zip"])
        try world.makeKeySync(["keyserver.style = folder", "keyserver.base_url = file://\(world.root)"])
        var settings = world.keySync.settings
        settings.startDelay = .milliseconds(10)
        settings.interval = .milliseconds(50)
        world.keySync.reconfigure(settings)
        world.keySync.start()
        #expect(world.keySync.status.nextSync != nil)
        #expect(world.loop.run(until: { world.reports.count >= 2 }, timeout: .seconds(30)))
        world.keySync.stop()
        #expect(world.reports.allSatisfy { $0.outcome == .succeeded })
        #expect(world.exposure(of: met).count == 1)
        #expect(world.keySync.status.nextSync == nil)
    }

    @Test func configurationWithoutAPublicKeyIsRefused() throws {
        #expect {
            _ = try KeySyncSettings(configuration: Configuration(parsing: "keyserver.index_url = https://x/index.txt"))
        } throws: { "\($0)".hasPrefix("keyserver.public_key is required") }
        #expect {
            _ = try KeySyncSettings(configuration: Configuration(parsing: """
                keyserver.index_url = https://x/index.txt
                keyserver.public_key = /nonexistent/key.pem
                keyserver.key_id = 1
                """))
        } throws: { "\($0)" == "keyserver.public_key: cannot read /nonexistent/key.pem: No such file or directory" }
    }
}
