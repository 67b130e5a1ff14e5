@testable import KeyDownload
import KeySyncTestSupport
@testable import AgentBase
import Foundation
import Network
import Testing

/// The key download's rules for what a server answers, driven through a substitute transport (no socket, no
/// libcurl): a file that is gone is skipped, a server error is retried, and the cursor moves only past files
/// that were downloaded and read, so a file that never came is fetched again next time.
@Suite struct KeySyncTransportTests {
    @Test func aFileTheServerNoLongerHasIsSkippedAndTheOthersStillMatch() throws {
        let world = try KeySyncWorld()
        let met = world.meet()
        let server = serve([("kept.zip", met)], listing: ["gone.zip", "kept.zip"], in: world)
        try world.makeKeySync([server.indexURL], transport: server)

        let report = try world.syncNow()
        #expect((report.outcome, report.skipped, report.processed, report.retries) == (.succeeded, 1, 1, 0))
        #expect(world.exposure(of: met).count == 1)
        #expect(world.logLines.contains { $0.contains("skipping gone.zip: HTTP status 404") })

        // Past both: the next run lists and fetches nothing.
        let next = try world.syncNow()
        #expect((next.outcome, next.new) == (.succeeded, 0))
        #expect(server.requested == ["/index.txt", "/gone.zip", "/kept.zip", "/index.txt"])
    }

    @Test func serverErrorsAndDroppedConnectionsAreRetriedUntilTheFileComes() throws {
        let world = try KeySyncWorld()
        let met = world.meet()
        let server = serve([("a.zip", met)], listing: ["a.zip"], in: world)
        server.failures["/a.zip"] = [.httpStatus(503), .transport("connection reset by peer")]
        try world.makeKeySync([server.indexURL], transport: server)

        let report = try world.syncNow()
        #expect((report.outcome, report.processed, report.retries) == (.succeeded, 1, 2))
        #expect(world.exposure(of: met).count == 1)
        #expect(server.requested == ["/index.txt", "/a.zip", "/a.zip", "/a.zip"])
    }

    @Test func theCursorStaysBeforeAFileThatNeverCameAndItIsFetchedNextTime() throws {
        let world = try KeySyncWorld()
        let k1 = world.meet(hour: 8), k2 = world.meet(hour: 11)
        let server = serve([("a.zip", k1), ("b.zip", k2)], listing: ["a.zip", "b.zip"], in: world)
        server.failures["/b.zip"] = [.httpStatus(502), .httpStatus(502)]
        let twoTries = RetryPolicy(attempts: 2, firstDelay: .milliseconds(10), maximumDelay: .milliseconds(50))
        try world.makeKeySync([server.indexURL], retry: twoTries, transport: server)

        let first = try world.syncNow()
        guard case .failed(let reason) = first.outcome else {
            Issue.record("expected the run to fail, got \(first.outcome)")
            return
        }
        #expect(reason.hasPrefix("b.zip: "))
        #expect(world.exposure(of: k1).count == 1)
        #expect(world.exposure(of: k2).isEmpty)
        let cursor = try String(contentsOfFile: world.dataDirectory + "/keysync", encoding: .utf8)
        #expect(cursor.contains("last_line a.zip\n"))

        let second = try world.syncNow()
        #expect((second.outcome, second.new, second.processed) == (.succeeded, 1, 1))
        #expect(world.exposure(of: k2).count == 1)
        #expect(Array(server.requested.suffix(2)) == ["/index.txt", "/b.zip"])
    }

    @Test func aDownloadTheDiskCannotHoldStopsTheRunWithoutSkippingTheFile() throws {
        let world = try KeySyncWorld()
        let met = world.meet()
        let server = serve([("a.zip", met)], listing: ["a.zip"], in: world)
        server.failures["/a.zip"] = [.localWrite("No space left on device")]
        try world.makeKeySync([server.indexURL], transport: server)

        let first = try world.syncNow()
        #expect(first.outcome != .succeeded)
        #expect(first.skipped == 0)
        #expect(world.exposure(of: met).isEmpty)

        let second = try world.syncNow()
        #expect((second.outcome, second.processed) == (.succeeded, 1))
        #expect(world.exposure(of: met).count == 1)
        #expect(server.requested == ["/index.txt", "/a.zip", "/index.txt", "/a.zip"])
    }

    /// A substitute key server for `world` that lists `index` and serves an export of each met key under its name.
    private func serve(_ files: [(name: String, met: MetKey)], listing index: [String],
                       in world: KeySyncWorld) -> SubstituteKeyServer {
        for file in files { world.publish(world.export([file.met.key]), at: file.name) }
        world.publishIndex(index)
        return SubstituteKeyServer(loop: world.loop, root: world.root)
    }
}
