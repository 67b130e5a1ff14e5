import ENCore
@testable import KeyShare
import Testing

/// Restarts, `keys share cancel`, `wipe`, stopping, and chaff, on `ShareMachine` alone. Each test names the test
/// whose rule it pins down here: against the Python test health authority (AgentTests/KeyShareEndToEndTests,
/// ENCoreTests/HealthAuthorityServerTests), or against a scripted one on a loop (AgentTests/KeyShareTests).
@Suite struct ShareMachineStaffTests {
    typealias Bench = ShareMachineBench
    static let consent = Bench.consent

    /// What a restart reads back of what `bench` wrote.
    static func reread(_ bench: Bench) -> ShareRecord { ShareRecord(text: bench.onDisk.text) }

    /// Mirrors aShareSurvivesARestartAndACancelledOneNeverPublishes (the restart): a new service on the record
    /// the last one wrote resumes the share, says so, and publishes when it was due.
    @Test func aShareSurvivesARestart() throws {
        let before = try Bench.verified()
        let publishAfter = try #require(before.status.publishAfter)
        var after = Bench(days: 2, start: Self.consent + 3600, record: Self.reread(before))
        after.startService()
        #expect(after.logs.first == "info key share: resuming the share of 2021-05-31T12:00:00Z (publishing after "
                + "\(UTCDateTime(unixSeconds: publishAfter)))")
        #expect(after.status.phase == .waiting && after.status.publishAfter == publishAfter && after.sent.isEmpty)
        after.addTodaysKey()
        after.run(until: publishAfter)
        #expect(after.endpoints == [.certificate, .publish])
        #expect(after.outcomes.map(\.kind) == [.published])
    }

    /// A share whose token ran out while the badge was off is reported at the next start, not dropped.
    @Test func aShareWhoseTimeRanOutWhileTheBadgeWasOffIsReportedAtStart() throws {
        let before = try Bench.verified()
        var after = Bench(days: 2, start: Self.consent + 2 * 86_400, record: Self.reread(before))
        after.startService()
        #expect(after.outcomes.map(\.kind) == [.expired] && after.sent.isEmpty)
        #expect(after.outcomes.first?.at == Self.consent + 86_400, "when it expired, not when the badge noticed")
    }

    /// Mirrors the certificate's half of aRestartBetweenTheCertificateAndThePublish…: a restart publishes what the
    /// certificate covers without asking for another; keys that changed meanwhile end the share instead.
    @Test func aRestartBetweenTheCertificateAndThePublishSendsWhatTheCertificateCovers() throws {
        var before = try Bench.verified()
        before.server = { endpoint in endpoint == .publish ? .failure(.unreachable("connection refused")) : Bench.healthy(endpoint) }
        before.run(until: try #require(before.status.nextAttemptAt) + 5)
        let held = Self.reread(before)
        #expect(held.pending?.certificate != nil && held.pending?.token == nil)
        var after = Bench(days: 2, start: before.now + 60, record: held)
        after.keys = before.keys
        after.startService()
        after.runUntilIdle()
        #expect(after.endpoints.first == .publish && !after.endpoints.contains(.certificate))
        #expect(after.outcomes.last?.kind == .published)
        let hmac = try #require(before.bodies(.certificate).first?["ekeyhmac"])
        let secret = try #require(held.pending?.secret)
        let covered = try ExposureKeyHMAC.base64(after.keys.prefix(2).map { PublishedKey($0) }, secret: secret)
        #expect(hmac == .string(covered))

        var changed = Bench(days: 2, start: before.now + 60, record: held)
        changed.keys = Array(before.keys.dropFirst())
        changed.startService()
        #expect(changed.sent.isEmpty && changed.outcomes.last?.kind == .failed)
        #expect(changed.outcomes.last?.message == "the badge's keys changed after the certificate was issued, so they cannot "
                + "be shared with it: ask the health authority for a new code")
    }

    /// Mirrors aShareSurvivesARestartAndACancelledOneNeverPublishes (cancel): the token goes, staff are told,
    /// and nothing more leaves the badge.
    @Test func aCancelledShareNeverPublishes() throws {
        var bench = try Bench.verified()
        try bench.cancel()
        #expect(bench.outcomes.map(\.kind) == [.verified, .cancelled])
        #expect(bench.outcomes.last?.message == "cancelled by staff: no keys were shared, and the code's verification was "
                + "discarded")
        #expect(bench.onDisk.pending == nil && bench.status.phase == .idle)
        bench.run(for: 2 * 86_400)
        #expect(bench.endpoints == [.verify], "a cancelled share sends nothing")
        #expect(throws: KeyShareError.nothingToCancel) { try bench.cancel() }
    }

    /// A cancel while the code is being checked keeps nothing, and the answer that comes late changes nothing.
    @Test func aCancelWhileTheCodeIsCheckedKeepsNothing() throws {
        var bench = Bench(days: 2, start: Self.consent)
        bench.server = { _ in nil }
        bench.startService()
        try bench.share()
        #expect(bench.status.phase == .verifying)
        #expect(throws: KeyShareError.busy) { try bench.share("87654321") }
        try bench.cancel()
        #expect(bench.answers == [.failure(.refused("cancelled before the health authority answered: nothing was kept"))])
        #expect(bench.machine.answered(.verify, Bench.healthy(.verify), at: bench.moment).isEmpty)
        #expect(bench.record.pending == nil && bench.status.phase == .idle && bench.outcomes.isEmpty)
    }

    /// Mirrors aShareSurvivesARestartAndACancelledOneNeverPublishes (wipe): the share goes with the keys it is
    /// about, and the record says why.
    @Test func wipeTakesTheShareUnderWay() throws {
        var bench = try Bench.verified()
        bench.wipe()
        #expect(bench.status.phase == .idle && bench.onDisk.pending == nil)
        #expect(bench.onDisk.outcome?.message == "deleted by wipe: no keys were shared")
        bench.run(for: 2 * 86_400)
        #expect(bench.endpoints == [.verify])
    }

    /// Stopping the service drops the request under way and answers staff; the share resumes at the next start.
    @Test func stoppingAnswersStaffAndSendsNothingMore() throws {
        var bench = Bench(days: 2, start: Self.consent)
        bench.server = { _ in nil }
        bench.startService()
        try bench.share()
        bench.stop()
        #expect(bench.answers == [.failure(.interrupted)])
        #expect(KeyShareError.interrupted.description == "the agent stopped before the health authority answered: "
                + "nothing was kept; enter the code again")

        var waiting = try Bench.verified()
        waiting.stop()
        waiting.run(for: 2 * 86_400)
        #expect(waiting.endpoints == [.verify] && waiting.onDisk.pending?.token == Bench.token,
                "kept for the next start, nothing sent meanwhile")
    }

    /// What an outcome and a publication leave lapses: an outcome after 14 days, a publication after 15; then the
    /// record's file goes.
    @Test func whatIsLeftLapsesAndTheRecordGoes() throws {
        var bench = try Bench.verified()
        bench.runUntilIdle()
        let published = try #require(bench.status.publishedAt)
        bench.run(until: published + 14 * 86_400)
        #expect(bench.onDisk.outcome == nil && bench.onDisk.publication != nil)
        bench.run(until: published + 15 * 86_400)
        #expect(bench.onDisk.isEmpty && bench.status.lastOutcome == nil)
    }

    /// Mirrors the chaff half of the health authority's own tests: chaff goes out about `share.chaff_per_day` a day,
    /// shaped like real requests (the same padded sizes and headers, marked), never beside a real request.
    @Test func chaffGoesOutAtRandomShapedLikeRealRequestsAndNeverBesideOne() throws {
        var settings = Bench.settings
        settings.chaffPerDay = 12
        var bench = Bench(days: 2, start: Self.consent, settings: settings)
        bench.startService()
        bench.run(for: 4 * 86_400)
        #expect(bench.sent.isEmpty)
        #expect(bench.machine.chaffSent >= 24 && bench.machine.chaffSent <= 72, "about 12 a day: \(bench.machine.chaffSent)")
        #expect(bench.chaff.allSatisfy { $0.headers.contains("X-Chaff: 1") })
        func sizes(_ suffix: String) -> Set<Int> { Set(bench.chaff.filter { $0.url.hasSuffix(suffix) }.map(\.body.count)) }
        #expect(sizes("/api/verify") == [1000] && sizes("/api/certificate") == [2000] && sizes("/v1/publish") == [5000])
        #expect(bench.chaff.filter { $0.url.hasSuffix("/api/certificate") }.count
                == bench.chaff.filter { $0.url.hasSuffix("/v1/publish") }.count)
        #expect(bench.chaff.filter { !$0.url.hasSuffix("/v1/publish") }.allSatisfy { $0.headers.contains("X-API-Key: the-api-key") })

        // A code being checked: no chaff until it is answered.
        bench.server = { _ in nil }
        try bench.share()
        let before = bench.chaff.count
        bench.run(for: 86_400)
        #expect(bench.chaff.count == before, "none beside a real request")

        // Off: none.
        var quiet = Bench(days: 2, start: Self.consent)
        quiet.startService()
        quiet.run(for: 4 * 86_400)
        #expect(quiet.chaff.isEmpty)
    }
}
