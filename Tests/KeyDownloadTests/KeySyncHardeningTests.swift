@testable import KeyDownload
import KeySyncTestSupport
@testable import AgentBase
import ENCore
import EventLoop
import Foundation
import Testing
import TestSupport
import Network

/// Issue 12, findings 1 and 5, against Tools/keyserver/keyserver.py on 127.0.0.1: each input that used to
/// wedge the key sync (retried for ever, the cursor never moving) is now skipped or bounded, said once in the
/// log and in `sync`, and the next good file still matches. One test per input.
@Suite(.serialized) struct KeySyncHardeningTests {
    /// A world with one met key behind a bad entry: index `bad`, then `good.zip` holding the met key.
    struct Scenario {
        let world: KeySyncWorld
        let met: MetKey
        let serverLog: String

        init(badEntry: String, badFile: [UInt8]? = nil) throws {
            world = try KeySyncWorld()
            met = world.meet()
            if let badFile { world.publish(badFile, at: badEntry) }
            world.publish(world.export([met.key] + world.strangers(20)), at: "good.zip")
            world.publishIndex([badEntry, "good.zip"])
            serverLog = world.folder.path + "/requests.log"
        }

        func start(_ faults: [String], _ settings: [String] = [],
                   retry: RetryPolicy = RetryPolicy(attempts: 2, firstDelay: .milliseconds(10),
                                                    maximumDelay: .milliseconds(10))) throws -> ServerProcess {
            let (server, port) = try TestServers.keyServer(root: world.root, arguments: ["--log", serverLog] + faults)
            try world.makeKeySync(["keyserver.index_url = http://127.0.0.1:\(port)/index.txt"] + settings, retry: retry)
            return server
        }

        var requests: [String] { KeySyncEndToEndTests.requests(serverLog) }
        var cursor: String { (try? String(contentsOfFile: world.dataDirectory + "/keysync", encoding: .utf8)) ?? "" }
    }

    @Test func aMalformedIndexLineIsSkippedOnceAndTheNextFileMatches() throws {
        let s = try Scenario(badEntry: "exports/with space.zip")
        let server = try s.start([])
        defer { server.kill() }
        let report = try s.world.syncNow()
        #expect((report.outcome, report.skipped, report.processed) == (.succeeded, 1, 1))
        #expect(s.world.exposure(of: s.met).count == 1)
        #expect(s.requests == ["/index.txt", "/good.zip"], "a malformed line is never fetched")
        #expect(s.world.logLines.filter { $0.contains("skipping exports/with space.zip: malformed index line") }.count == 1)
        #expect(report.refusals == ["exports/with space.zip: skipped, malformed index line (a relative path of printable "
                                    + "ASCII without spaces, a leading '/' or '..' is expected)"])
        #expect(s.cursor.contains("last_line good.zip\n"))
        // Not again: the cursor is past it.
        let again = try s.world.syncNow()
        #expect((again.new, again.skipped) == (0, 0))
    }

    @Test func aRedirectToALocalFileOrAnotherPortIsRefusedAndTheNextFileMatches() throws {
        let world = try KeySyncWorld()
        let met = world.meet()
        world.publish(world.export([met.key]), at: "real/good.zip")
        world.publishIndex(["local.zip", "port.zip", "moved.zip"])
        let other = TestServers.closedPort()
        let (server, port) = try TestServers.keyServer(root: world.root, arguments: [
            "--redirect", "/local.zip=file://\(world.root)/real/good.zip",
            "--redirect", "/port.zip=http://127.0.0.1:\(other)/real/good.zip",
            "--redirect", "/moved.zip=/real/good.zip",
        ])
        defer { server.kill() }
        try world.makeKeySync(["keyserver.index_url = http://127.0.0.1:\(port)/index.txt"])
        let report = try world.syncNow()
        #expect((report.outcome, report.skipped, report.processed, report.retries) == (.succeeded, 2, 1, 0))
        #expect(world.exposure(of: met).count == 1, "a redirect within the server is followed")
        #expect(world.logLines.contains { $0.contains("skipping local.zip: redirect to file://\(world.root)/real/good.zip refused") })
        #expect(world.logLines.contains { $0.contains("skipping port.zip: redirect to http://127.0.0.1:\(other)/") })
    }

    /// A Content-Length larger than the body: the connection ends short, which looks like a network error
    /// and is retried — but only `sync.give_up_after_runs` runs in a row; one smaller than the body: the
    /// file is cut, refused as a damaged zip, and skipped at once.
    @Test func aWrongContentLengthIsBoundedAndTheNextFileMatches() throws {
        let world = try KeySyncWorld()
        let met = world.meet()
        world.publish(world.export(world.strangers(50)), at: "long.zip")
        world.publish(world.export(world.strangers(50)), at: "short.zip")
        world.publish(world.export([met.key]), at: "good.zip")
        world.publishIndex(["long.zip", "short.zip", "good.zip"])
        let (server, port) = try TestServers.keyServer(root: world.root, arguments: [
            "--wrong-length", "/long.zip=+1000", "--wrong-length", "/short.zip=-100",
        ])
        defer { server.kill() }
        let retry = RetryPolicy(attempts: 2, firstDelay: .milliseconds(10), maximumDelay: .milliseconds(10))
        try world.makeKeySync(["keyserver.index_url = http://127.0.0.1:\(port)/index.txt", "sync.give_up_after_runs = 2"],
                              retry: retry)
        // Run 1: long.zip's retries run out; the run stops there, and the cursor remembers it.
        let first = try world.syncNow()
        guard case .failed(let reason) = first.outcome else {
            Issue.record("the first run stops on long.zip: \(first.outcome)")
            return
        }
        #expect(reason.hasPrefix("long.zip: ") && reason.contains("1000 bytes remaining"), "\(reason)")
        #expect(first.retries == 1 && world.exposure(of: met).isEmpty)
        // Run 2: the second run in a row to fail on it gives it up and goes on.
        let second = try world.syncNow()
        #expect((second.outcome, second.skipped, second.rejected, second.processed) == (.succeeded, 1, 1, 1))
        #expect(world.logLines.contains { $0.contains("skipping long.zip: given up after 2 sync(s) in a row") })
        #expect(world.logLines.contains { $0.contains("rejected short.zip: ") })
        #expect(world.exposure(of: met).count == 1)
    }

    /// A server that sends a byte a second is abandoned after `sync.min_rate_seconds` below `sync.min_rate`,
    /// instead of holding the sync for half an hour.
    @Test func aDrippingServerIsBoundedAndTheNextFileMatches() throws {
        let s = try Scenario(badEntry: "slow.zip", badFile: Array(repeating: 0x42, count: 5_000))
        let server = try s.start(["--drip", "/slow.zip=1"],
                                 ["sync.min_rate = 100", "sync.min_rate_seconds = 1", "sync.give_up_after_runs = 1"])
        defer { server.kill() }
        let report = try s.world.syncNow()
        #expect((report.outcome, report.skipped, report.processed, report.retries) == (.succeeded, 1, 1, 1))
        #expect(s.world.exposure(of: s.met).count == 1)
        #expect(s.world.logLines.contains {
            $0.contains("skipping slow.zip: given up after 1 sync(s)") && $0.lowercased().contains("too slow")
        })
        #expect(s.requests == ["/index.txt", "/slow.zip", "/slow.zip", "/good.zip"])
    }

    /// 5xx is worth retrying — within a run with backoff, and across runs up to the limit, never for ever.
    @Test func anExportFailingRunAfterRunIsGivenUpAtTheLimit() throws {
        let s = try Scenario(badEntry: "busy.zip", badFile: Array(repeating: 0, count: 10))
        let server = try s.start(["--fail", "/busy.zip=100:503"])
        defer { server.kill() }
        for run in 1...2 {
            let report = try s.world.syncNow()
            #expect(report.outcome == .failed("busy.zip: HTTP status 503"), "run \(run)")
            #expect(s.cursor.contains("failing \(run) busy.zip\n"), "run \(run): \(s.cursor)")
        }
        #expect(s.world.exposure(of: s.met).isEmpty)
        let third = try s.world.syncNow()
        #expect((third.outcome, third.skipped, third.processed) == (.succeeded, 1, 1))
        #expect(s.world.exposure(of: s.met).count == 1)
        #expect(!s.cursor.contains("failing"))
        #expect(s.requests.filter { $0 == "/busy.zip" }.count == 3 * 2, "two attempts in each of three runs")
    }

    /// One cursor write per sync, at its end, however many files it processed. (The last file is sent
    /// slowly, so the test sees the run between its second and its last file.)
    @Test func theCursorIsWrittenOncePerSync() throws {
        let world = try KeySyncWorld()
        let keys = (0..<3).map { world.meet(hour: 8 + 2 * $0) }
        for (i, met) in keys.enumerated() { world.publish(world.export([met.key]), at: "\(i).zip") }
        world.publishIndex(["0.zip", "1.zip", "2.zip"])
        let (server, port) = try TestServers.keyServer(root: world.root, arguments: ["--drip", "/2.zip=100"])
        defer { server.kill() }
        try world.makeKeySync(["keyserver.index_url = http://127.0.0.1:\(port)/index.txt"])
        let cursor = world.dataDirectory + "/keysync"
        #expect(world.keySync.syncNow() == .started)
        #expect(world.loop.run(until: { world.keySync.status.phase == .downloading(file: 3, of: 3) }, timeout: .seconds(30)))
        #expect(world.exposure(of: keys[0]).count == 1 && world.exposure(of: keys[1]).count == 1)
        #expect(!FileManager.default.fileExists(atPath: cursor), "two files done, no cursor write yet")
        #expect(world.loop.run(until: { world.reports.count == 1 }, timeout: .seconds(60)))
        #expect(try String(contentsOfFile: cursor, encoding: .utf8).contains("last_line 2.zip\n"))
        #expect(world.exposure(of: keys[2]).count == 1)
    }

    /// `sync.max_files`: a long backlog is taken a slice per sync, the rest said to wait.
    @Test func aBacklogIsTakenAtMostMaxFilesPerSync() throws {
        let world = try KeySyncWorld()
        let keys = (0..<5).map { world.meet(hour: 6 + 2 * $0) }
        for (i, met) in keys.enumerated() { world.publish(world.export([met.key]), at: "\(i).zip") }
        world.publishIndex((0..<5).map { "\($0).zip" })
        try world.makeKeySync(["keyserver.style = folder", "keyserver.base_url = file://\(world.root)", "sync.max_files = 2"])
        let first = try world.syncNow()
        #expect((first.new, first.processed, first.deferred) == (5, 2, 3))
        #expect(first.summary.contains("3 left for the next sync"))
        #expect(try world.syncNow().processed == 2)
        #expect((try world.syncNow().processed, world.exposures.exposures.count) == (1, 5))
    }

    /// Downloads live in the data directory only while needed: 0600 while they exist, gone after their
    /// batch, and whatever a crash left behind is removed when the key sync starts.
    @Test func downloadsArePrivateTemporaryAndCleanedAtStart() throws {
        let world = try KeySyncWorld()
        let met = world.meet()
        world.publish(world.export([met.key], batch: (1, 2)), at: "a.zip")
        world.publish(world.export(world.strangers(5), batch: (2, 2)), at: "b.zip")
        world.publishIndex(["a.zip", "b.zip"])
        let stale = world.dataDirectory + "/keysync-7.download"
        _ = FileManager.default.createFile(atPath: stale, contents: Data(repeating: 1, count: 1000))
        // b.zip is sent slowly, so the test sees a.zip waiting for it.
        let (server, port) = try TestServers.keyServer(root: world.root, arguments: ["--drip", "/b.zip=100"])
        defer { server.kill() }
        try world.makeKeySync(["keyserver.index_url = http://127.0.0.1:\(port)/index.txt"])
        #expect(!FileManager.default.fileExists(atPath: stale))
        #expect(world.logLines.contains { $0.contains("removed 1 download(s) left by an earlier run") })
        func downloads() -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: world.dataDirectory)) ?? []).filter { $0.hasSuffix(".download") }
        }
        #expect(world.keySync.syncNow() == .started)
        // a.zip waits on disk for the rest of its batch while b.zip is fetched.
        #expect(world.loop.run(until: { world.keySync.status.phase == .downloading(file: 2, of: 2) }, timeout: .seconds(30)))
        let held = downloads()
        #expect(held.count == 2, "\(held)")
        for name in held {
            let mode = try FileManager.default.attributesOfItem(atPath: world.dataDirectory + "/" + name)[.posixPermissions] as? Int
            #expect(mode == 0o600)
        }
        #expect(world.loop.run(until: { world.reports.count == 1 }, timeout: .seconds(60)))
        #expect(world.exposure(of: met).count == 1)
        #expect(downloads().isEmpty)
    }
}
