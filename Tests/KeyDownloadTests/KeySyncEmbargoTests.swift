import ENCore
import Foundation
@testable import KeyDownload
import KeySyncTestSupport
import Testing
import Network
import TestSupport

/// A key read while still under embargo (SPEC §4) is matched by the first sync after its embargo ends,
/// although that sync downloads nothing: each file is read once.
@Suite struct KeySyncEmbargoTests {
    @Test func aKeyUnderEmbargoWhenReadIsMatchedByTheFirstSyncAfterItsEnd() throws {
        let world = try KeySyncWorld()
        let (key, unmet) = try Self.metKeyUnderEmbargo(in: world)
        let tek = key.tek
        world.publish(world.export([key] + unmet + world.strangers(5)), at: "today.zip")
        world.publishIndex(["today.zip"])
        let server = ["keyserver.style = folder", "keyserver.base_url = file://\(world.root)"]
        try world.makeKeySync(server)

        let first = try world.syncNow()
        #expect(first.outcome == .succeeded && first.processed == 1)
        #expect((first.heldKeys, first.newExposures) == (121, 0))
        #expect(world.exposures.exposures.isEmpty)
        let cursor = try String(contentsOfFile: world.dataDirectory + "/keysync", encoding: .utf8)
        #expect(cursor.contains("held \(tek.keyData.hex) \(tek.rollingStart.value) 20 4 1 -\n"))
        #expect(first.summary.contains("121 held until their embargo ends"), "\(first.summary)")

        // Still under embargo a minute later: nothing new to download, and the key stays held.
        world.wallClockAhead = .seconds(60)
        let early = try world.syncNow()
        #expect((early.new, early.releasedKeys, early.newExposures) == (0, 0, 0))

        // Three hours later, after a restart: the held key is read back from the cursor and matched.
        world.wallClockAhead = .seconds(3 * 3600)
        try world.makeKeySync(server)
        let later = try world.syncNow()
        #expect(later.outcome == .succeeded)
        #expect((later.new, later.processed, later.releasedKeys, later.newExposures) == (0, 0, 121, 1))
        // 121 keys at 50 a slice (match.batch_keys): the loop had its turn between slices.
        #expect(later.matchSlices >= 3)
        #expect(world.exposures.exposures.map(\.id) == [ExposureID(key: tek)])
        #expect(!(try String(contentsOfFile: world.dataDirectory + "/keysync", encoding: .utf8)).contains("held "))

        // Matched once: the next sync has nothing to add.
        let again = try world.syncNow()
        #expect((again.releasedKeys, again.newExposures) == (0, 0))
        #expect(world.exposures.exposures.count == 1)
    }

    /// More keys under embargo than a cursor holds, and keys of the future: the first 10,000 are held (the met
    /// key among them), the rest counted as dropped, the future ones as not valid yet; after the embargo the
    /// met key matches. The same bound on a million keys, with the agent's memory measured, is
    /// `KeySyncMemoryTests.aMillionKeysUnderEmbargoAndAMillionOfTheFutureCostCountersNotMemory`.
    @Test func aMetKeyHeldAmongMoreThanTheCapMatchesAfterItsEmbargo() throws {
        let world = try KeySyncWorld()
        let (key, unmet) = try Self.metKeyUnderEmbargo(in: world)
        let more = (0..<(SyncCursor.maxHeldKeys - 1 - unmet.count + 250)).map { _ in
            DiagnosisKey(tek: TemporaryExposureKey(keyData: Bytes16.random(), rollingStart: key.tek.rollingStart, rollingPeriod: 20),
                         transmissionRiskLevel: 4)
        }
        let inThreeDays = ENIntervalNumber(unixSeconds: world.now)!.dayStart.advanced(by: 3 * 144)!
        let future = (0..<7).map { _ in DiagnosisKey(tek: TemporaryExposureKey(keyData: Bytes16.random(), rollingStart: inThreeDays)) }
        world.publish(world.export([key] + unmet + more + future), at: "today.zip")
        world.publishIndex(["today.zip"])
        let server = ["keyserver.style = folder", "keyserver.base_url = file://\(world.root)"]
        try world.makeKeySync(server)

        let first = try world.syncNow()
        #expect(first.outcome == .succeeded)
        #expect((first.heldKeys, first.droppedHeldKeys, first.notValidYetKeys) == (SyncCursor.maxHeldKeys, 250, 7))
        #expect(first.summary.contains("10000 held until their embargo ends, 250 under embargo not held"), "\(first.summary)")
        let cursor = try String(contentsOfFile: world.dataDirectory + "/keysync", encoding: .utf8)
        #expect(cursor.contains("held \(key.tek.keyData.hex) "))

        world.wallClockAhead = .seconds(3 * 3600)
        let later = try world.syncNow()
        #expect((later.releasedKeys, later.newExposures) == (SyncCursor.maxHeldKeys, 1))
        #expect(world.exposures.exposures.map(\.id) == [ExposureID(key: key.tek)])
    }

    /// Matching a held key needs no network: when its embargo ends while the key server is down, the next
    /// sync still matches it (before its listing fails), and says so in its phase.
    @Test func aHeldKeyIsMatchedWhenItsEmbargoEndsEvenWithTheKeyServerDown() throws {
        let world = try KeySyncWorld()
        let (key, unmet) = try Self.metKeyUnderEmbargo(in: world)
        let tek = key.tek
        world.publish(world.export([key] + unmet), at: "today.zip")
        world.publishIndex(["today.zip"])
        var (server, port) = try TestServers.pythonHTTPServer(root: world.root)
        try world.makeKeySync(["keyserver.index_url = http://127.0.0.1:\(port)/index.txt"])
        let first = try world.syncNow()
        #expect(first.outcome == .succeeded && first.heldKeys == 121)

        // The server goes away; three hours later the key's embargo is over.
        server.kill()
        world.wallClockAhead = .seconds(3 * 3600)
        var phases: [String] = []
        let before = world.reports.count
        #expect(world.keySync.syncNow() == .started)
        #expect(world.loop.run(until: {
            let phase = world.keySync.status.phase.name
            if phases.last != phase { phases.append(phase) }
            return world.reports.count > before && (world.notifier.command?.running ?? 0) == 0
        }, timeout: .seconds(60)))
        let down = world.reports[before]
        guard case .failed(let reason) = down.outcome else { throw TestFailure("expected the listing to fail: \(down)") }
        #expect(reason.hasPrefix("listing http://127.0.0.1:\(port)/index.txt: "), "\(reason)")
        #expect((down.releasedKeys, down.newExposures) == (121, 1))
        #expect(world.exposures.exposures.map(\.id) == [ExposureID(key: tek)])
        #expect(phases.contains("matchingHeldKeys"), "\(phases)")
        #expect(!(try String(contentsOfFile: world.dataDirectory + "/keysync", encoding: .utf8)).contains("held "),
                "matched once: the cursor no longer holds it")

        // Back up: nothing is matched twice.
        (server, port) = try TestServers.pythonHTTPServer(root: world.root, port: port)
        defer { server.kill() }
        let again = try world.syncNow()
        #expect(again.outcome == .succeeded)
        #expect((again.releasedKeys, again.newExposures) == (0, 0) && world.exposures.exposures.count == 1)
    }

    /// A key whose validity ended 10 intervals ago, met while it was valid (its sightings stored): usable 2 hours
    /// after its end, so 20 to 30 minutes from now. And 120 keys of the same intervals, never met: held too, so
    /// that matching them when released takes several loop slices.
    static func metKeyUnderEmbargo(in world: KeySyncWorld) throws -> (met: DiagnosisKey, unmet: [DiagnosisKey]) {
        let current = ENIntervalNumber(unixSeconds: world.now)!
        let tek = TemporaryExposureKey(keyData: Bytes16.random(), rollingStart: current.advanced(by: -30)!, rollingPeriod: 20)
        sightings(of: tek, from: tek.rollingStart.unixSeconds + 300, minutes: 30, schedule: world.schedule)
            .forEach(world.store.append)
        try world.store.flush()
        let unmet = (0..<120).map { _ in
            DiagnosisKey(tek: TemporaryExposureKey(keyData: Bytes16.random(), rollingStart: tek.rollingStart, rollingPeriod: 20),
                         transmissionRiskLevel: 4)
        }
        return (DiagnosisKey(tek: tek, transmissionRiskLevel: 4), unmet)
    }
}
