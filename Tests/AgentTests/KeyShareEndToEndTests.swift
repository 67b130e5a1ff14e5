@testable import Agent
@testable import Console
import ENCore
import Foundation
import HCI
@testable import KeyShare
import Network
@testable import Simulation
import Testing
import TestSupport

/// Issue 14 end to end: badges on one virtual radio in virtual time, the test health authority's verification
/// server and key server on 127.0.0.1 (Tools/healthauthority), staff at each badge's console.
@Suite(.serialized, .enabled(if: HealthAuthorityTestServer.isAvailable,
                             "Python's cryptography package is missing (pip install cryptography): skipping"))
struct KeyShareEndToEndTests {
    /// 2021-05-30T12:00:00Z.
    static let start: Int64 = 1_622_376_000
    static let day: Int64 = 86_400

    /// A and B meet for an hour; staff enter a code on A; after midnight A publishes the keys of its complete
    /// days, exactly those of its key file and none still on air; B's key sync downloads the new export and
    /// records exactly one exposure, to A; C, who never met A, records none. Nothing secret reaches a log, the
    /// btsnoop file or a console answer.
    @Test func aSharedBadgeWarnsTheBadgeItMetAndNoOther() throws {
        let world = try ShareWorld(start: Self.start, seed: 140)
        let a = try world.addBadge("A", at: RadioPosition(x: 0, y: 0), indicator: true)
        let b = try world.addBadge("B", at: RadioPosition(x: 3000, y: 0))
        let c = try world.addBadge("C", at: RadioPosition(x: 0, y: 3000))

        // 2021-06-01, 09:00–10:00: B sits beside A.
        let meeting = Self.start + 2 * Self.day - 3 * 3600
        world.run(to: meeting)
        b.controller.position = RadioPosition(x: 1.5, y: 0)
        world.run(to: meeting + 3600)
        b.controller.position = RadioPosition(x: 3000, y: 0)

        // 12:00: A's wearer tested positive; staff enter the code through the console, with consent.
        world.run(to: meeting + 3 * 3600)
        #expect(world.sim.unixSeconds == 1_622_548_800)  // 2021-06-01T12:00:00Z
        let code = try world.issueCode(#"{"testDate": "2021-06-01"}"#)
        let requestsBefore = try world.apiRequests().count
        #expect(try world.error("keys share \(code)", on: a) == "keys share needs consent: add --yes (on a terminal the console asks instead)")
        #expect(try world.apiRequests().count == requestsBefore, "without consent nothing leaves the badge")
        let accepted = try world.text("keys share \(code) --yes", on: a)
        #expect(accepted.hasPrefix("code accepted: a confirmed test (test date 2021-06-01); the keys of complete days are "
                                   + "published after 2021-06-02T02:"), "\(accepted)")
        let token = try #require(world.shareFileValue(a, "token"))
        let mode = try FileManager.default.attributesOfItem(atPath: a.dataDirectory + "/share")[.posixPermissions] as? Int
        #expect(mode == 0o600)
        #expect(world.share(a).phase == .waiting)
        let publishAfter = try #require(world.share(a).publishAfter)
        #expect(publishAfter >= 1_622_592_000 + 7500 && publishAfter <= 1_622_592_000 + 9300)

        // Nothing more leaves the badge before the day of consent has ended.
        let afterVerify = try world.apiRequests().count
        world.run(to: publishAfter - 120)
        #expect(try world.apiRequests().count == afterVerify)

        // After midnight: a certificate for exactly the keys of complete days, and the publish at once.
        let buzzer = try #require(a.indicator?.buzzer)
        #expect(buzzer.changes == 0, "the buzzer is silent while the badge is only on air")
        #expect(try world.runThroughPublishing(a))
        #expect(buzzer.changes == 2, "one beep says the keys were shared")
        let status = world.share(a)
        #expect(status.lastOutcome?.kind == .published, "\(String(describing: status.lastOutcome))")
        let message = try #require(status.lastOutcome?.message)
        #expect(message == "shared 3 key(s) of 2021-05-30 to 2021-06-01 with the key server (3 stored)")
        #expect(status.holdsRevisionToken && !status.holdsToken && !status.holdsCertificate && !status.holdsSecret)
        let published = try world.server.published()
        let now = try #require(ENIntervalNumber(unixSeconds: world.sim.unixSeconds))
        let stored = a.storedKeys
        let complete = stored.filter { $0.rollingEnd <= UInt64(now.value) }
        #expect(stored.count == 4 && complete.count == 3, "A's key file: \(stored.count) keys, \(complete.count) of complete days")
        func form(_ key: TemporaryExposureKey) -> String { "\(Base64.encode(key.keyData.bytes)) \(key.rollingStart.value) \(key.rollingPeriod)" }
        let publishedForms = Set(published.map { "\($0["key"] as? String ?? "") \($0["rollingStartNumber"] as? Int ?? 0) \($0["rollingPeriod"] as? Int ?? 0)" })
        #expect(publishedForms == Set(complete.map(form)), "the key server holds exactly A's keys of complete days")
        let onAir = try #require(stored.first { $0.rollingEnd > UInt64(now.value) })
        #expect(!publishedForms.contains(form(onAir)), "the key in use is never published")
        // Each request padded to its size, whatever it carried.
        let sizes = Dictionary(grouping: try world.server.requests(), by: { $0["path"] as? String ?? "" })
            .mapValues { Set($0.compactMap { $0["bodyBytes"] as? Int }) }
        #expect(sizes["/api/verify"] == [1000] && sizes["/api/certificate"] == [2000] && sizes["/v1/publish"] == [5000], "\(sizes)")

        // B's next key sync downloads the export the key server made and finds A; C finds nothing.
        #expect(world.run(until: {
            [b, c].allSatisfy { $0.control.keySync?.cursor.hasPrefix("after exposureKeyExport-US/") == true }
        }, within: .seconds(3 * 3600)), "B and C synced after the publish: \(String(describing: b.control.keySync)) \(String(describing: c.control.keySync))")
        let exposures = b.agent.exposures.exposures
        #expect(exposures.count == 1, "B records exactly one exposure: \(exposures)")
        let meetingKey = try #require(complete.first { UTCDay($0.rollingStart).description == "2021-06-01" })
        #expect(exposures.first?.id == ExposureID(key: meetingKey), "the exposure is to A's key of the day they met")
        #expect(c.agent.exposures.exposures.isEmpty, "C never met A")

        // Staff were told, through notify.command, that the code was accepted and the keys published; B's
        // command got the exposure (which carries no `event`).
        let events = world.shareEvents(a)
        #expect(events.map { $0["outcome"] as? String ?? "" } == ["verified", "published"], "\(events)")
        #expect(events.last?["message"] as? String == message && events.last?["keys"] as? Int == 3)
        #expect(world.notifications(b).contains { $0["event"] == nil && $0["id"] as? String == ExposureID(key: meetingKey).hex })
        // `keys share status` and `status` say it in words.
        #expect(try world.text("keys share status", on: a).contains("published: \(message)"))
        #expect(try world.text("status", on: a).contains("key share    nothing under way; last: published at 2021-06-02T02:"))
        let statusJSON = try world.json("keys share status --json", on: a).object
        #expect(statusJSON["revisionToken"] as? String == "redacted" && statusJSON["token"] is NSNull)

        let secrets = try world.secrets(of: a, codes: [code], tokens: [token])
        #expect(secrets.count > 15)
        // The search finds a key where one is shown on purpose (with consent), so its silence below means something.
        #expect(ShareWorld.contains(Array(try world.text("keys --reveal --yes", on: a).utf8), Array(meetingKey.keyData.hex.utf8)))
        let leaks = try world.leaks(of: secrets, from: a)
        #expect(leaks.isEmpty, "\(leaks)")
        #expect(world.log(a).contains { $0.hasPrefix("info key share: \(message)") })
        // What went on the air (A's and B's RPIs and addresses, which each heard of the other) reaches no log, metric
        // or console answer of either badge: only the btsnoop file, which records the air.
        let airborne = world.onAirIdentifiers(of: [a, b])
        #expect(airborne.count > 100)
        #expect(try world.leaks(of: airborne, from: a).contains { $0.hasPrefix("btsnoop of A") }, "the search finds them where they are")
        let airborneLeaks = try world.leaks(of: airborne, from: a, btsnoop: false) + world.leaks(of: airborne, from: b, btsnoop: false)
        #expect(airborneLeaks.isEmpty, "\(airborneLeaks)")
    }

    // MARK: Failures, each with the words staff see

    /// 2021-05-30T10:00:00Z: a badge started then has two complete days of keys when it publishes on June 1st.
    static let failureStart: Int64 = 1_622_368_800
    /// 2021-05-31T12:00:00Z: staff enter the code.
    static let consent: Int64 = 1_622_462_400

    /// A world with one badge whose staff entered a valid code at `consent`; the code and the token it got.
    static func verifiedBadge(seed: UInt64, keySync: Bool = false) throws -> (ShareWorld, SimulatedBadge, String, String) {
        let world = try ShareWorld(start: failureStart, seed: seed)
        let a = try world.addBadge("A", keySync: keySync, indicator: true)
        world.run(to: consent)
        let code = try world.issueCode()
        let answer = try world.text("keys share \(code) --yes", on: a)
        guard answer.hasPrefix("code accepted: a confirmed test"), let token = world.shareFileValue(a, "token") else {
            throw TestFailure("the code was not accepted: \(answer)")
        }
        return (world, a, code, token)
    }

    /// Wrong, expired, used and other-type codes: refused at once with what to do, nothing kept, and a good code
    /// right after still works.
    @Test func refusedCodesSayWhatToDoAndKeepNothing() throws {
        let world = try ShareWorld(start: Self.failureStart, seed: 141)
        let a = try world.addBadge("A", keySync: false)
        world.run(to: Self.consent)
        let wrong = "73019462"
        let expired = try world.issueCode(#"{"state": "expired"}"#)
        let used = try world.issueCode(#"{"state": "used"}"#)
        let negative = try world.issueCode(#"{"testType": "negative"}"#)
        let unknown = "the health authority does not know this code, or it was already used: check the code, or ask "
            + "the health authority for a new one"
        #expect(try world.error("keys share \(wrong) --yes", on: a) == unknown)
        #expect(try world.error("keys share \(expired) --yes", on: a) == "this code has expired: ask the health authority for a new one")
        #expect(try world.error("keys share \(used) --yes", on: a) == unknown)
        #expect(try world.error("keys share \(negative) --yes", on: a) == "this code is for a kind of test result the badge "
                + "does not share: ask the health authority whether it is the right code")
        // Typing mistakes are caught before anything is sent.
        let sent = try world.apiRequests().count
        #expect(try world.error("keys share 1234-5678 --yes", on: a) == "a verification code has only letters and digits: check what was typed")
        #expect(try world.error("keys share 123 --yes", on: a).hasPrefix("a verification code has 6 to 20 letters and digits, this one has 3"))
        #expect(try world.error("keys share \(wrong) --test-date 2021-06-02 --yes", on: a)
                == "--test-date 2021-06-02 is after today (2021-05-31): check the date")
        #expect(try world.error("keys share \(wrong) --symptom-onset 31.05.2021 --yes", on: a).hasSuffix("(--symptom-onset: expected YYYY-MM-DD)"))
        #expect(try world.apiRequests().count == sent, "a mistyped code or date never leaves the badge")

        #expect(world.share(a).phase == .idle && world.shareFileValue(a, "token") == nil)
        #expect(world.share(a).lastOutcome?.kind == .refused)
        #expect(try world.text("keys share status", on: a).contains("refused: this code is for a kind of test result"))
        #expect(world.shareEvents(a).map { $0["outcome"] as? String ?? "" } == ["refused", "refused", "refused", "refused"])
        #expect(world.log(a).contains("warn key share: this code has expired: ask the health authority for a new one"))

        // The badge is not wedged: a good code goes through.
        let good = try world.issueCode()
        #expect(try world.text("keys share \(good) --yes", on: a).hasPrefix("code accepted"))
        let token = try #require(world.shareFileValue(a, "token"))
        let leaks = try world.leaks(of: try world.secrets(of: a, codes: [wrong, expired, used, negative, good], tokens: [token]), from: a)
        #expect(leaks.isEmpty, "\(leaks)")
    }

    /// The servers are unreachable when the share is due: the badge keeps the token, says so, tries again with
    /// backoff, and publishes once they are back; a publish answered 503 is retried within the certificate's life.
    @Test func unreachableServersDelayThePublishUntilTheyAreBack() throws {
        let (world, a, code, token) = try Self.verifiedBadge(seed: 142)
        try world.server.fault(#"{"server": "verification", "kind": "unreachable"}"#)
        let due = try #require(world.share(a).nextAttemptAt)
        world.run(to: due - 60)
        try world.syncServerClock()
        #expect(world.run(until: { world.share(a).attempts >= 3 }, within: .seconds(3600), step: .seconds(10)))
        let status = world.share(a)
        #expect(status.phase == .retrying)
        #expect(status.lastError?.hasPrefix("cannot reach the health authority's verification server (") == true, "\(status)")
        #expect(status.lastError?.hasSuffix("): the badge will try again") == true)
        #expect(world.shareFileValue(a, "token") == token, "the token is kept while the server cannot be reached")
        #expect(try world.text("keys share status", on: a).contains("attempt 3 failed (cannot reach the health authority's verification server"))
        // Told once, not at every try.
        #expect(world.shareEvents(a).map { $0["outcome"] as? String ?? "" } == ["verified", "retrying"])
        #expect(world.log(a).filter { $0.hasPrefix("warn key share: cannot reach") }.count == 1)

        // Back, but the key server answers 503 twice: the certificate is used at once, the publish retried.
        try world.server.clearFaults()
        try world.server.fault(#"{"server": "keyserver", "kind": "status", "status": 503, "count": 2, "path": "/v1/publish"}"#)
        try world.syncServerClock()
        #expect(world.run(until: { world.share(a).phase == .idle }, within: .seconds(3600), step: .seconds(10)))
        let done = world.share(a)
        #expect(done.lastOutcome?.kind == .published, "\(String(describing: done.lastOutcome))")
        #expect(done.lastOutcome?.message == "shared 2 key(s) of 2021-05-30 to 2021-05-31 with the key server (2 stored)")
        #expect(try world.server.published().count == 2)
        let answers = try world.apiRequests().map { "\($0["path"] as? String ?? "") \($0["status"] as? Int ?? 0)" }
        #expect(answers == ["/api/verify 200", "/api/certificate 200", "/v1/publish 503", "/v1/publish 503", "/v1/publish 200"])
        #expect(world.shareEvents(a).map { $0["outcome"] as? String ?? "" } == ["verified", "retrying", "published"])
        let leaks = try world.leaks(of: try world.secrets(of: a, codes: [code], tokens: [token]), from: a)
        #expect(leaks.isEmpty, "\(leaks)")
    }

    /// The badge cannot reach the verification server for a whole day: the token is kept until it expires,
    /// then the share ends with "ask for a new code" — reported, never dropped silently.
    @Test func aTokenThatExpiresBeforePublishingIsReported() throws {
        let (world, a, code, token) = try Self.verifiedBadge(seed: 143)
        try world.server.fault(#"{"server": "verification", "kind": "unreachable"}"#)
        let expiry = try #require(world.share(a).usableUntil)
        #expect(expiry == Self.consent + Self.day, "the token's own expiry (24 h)")
        world.run(to: expiry - 3600)
        #expect(world.share(a).phase == .retrying && world.share(a).attempts >= 5, "\(world.share(a))")
        #expect(world.shareFileValue(a, "token") == token, "an hour before it expires the token is still kept")
        world.run(to: expiry + 60)
        let status = world.share(a)
        #expect(status.phase == .idle && !status.holdsToken && world.shareFileValue(a, "token") == nil)
        #expect(status.lastOutcome?.kind == .expired)
        let message = try #require(status.lastOutcome?.message)
        #expect(message.hasPrefix("the code's verification expired at 2021-06-01T12:00:00Z before the keys could be shared "
                                  + "(last error: cannot reach the health authority's verification server ("), "\(message)")
        #expect(message.hasSuffix("): nothing was shared; ask the health authority for a new code"))
        #expect(world.log(a).contains("warn key share: FAILED: \(message)"))
        #expect(world.shareEvents(a).map { $0["outcome"] as? String ?? "" } == ["verified", "retrying", "expired"])
        #expect(world.shareEvents(a).last?["message"] as? String == message)
        #expect(try world.text("status", on: a).contains("key share    nothing under way; last: expired at 2021-06-01T12:00:00Z"))
        #expect(try world.apiRequests().map { $0["path"] as? String ?? "" } == ["/api/verify"])
        let leaks = try world.leaks(of: try world.secrets(of: a, codes: [code], tokens: [token]), from: a)
        #expect(leaks.isEmpty, "\(leaks)")
    }

    /// The key server rejects the certificate: nothing is stored, and staff learn what to check.
    @Test func aRejectedCertificateIsReportedAndNothingIsStored() throws {
        let (world, a, code, token) = try Self.verifiedBadge(seed: 144)
        try world.server.fault(#"{"server": "keyserver", "kind": "certificate-rejected"}"#)
        #expect(try world.runThroughPublishing(a))
        let status = world.share(a)
        let expected = "the key server refused the health authority's certificate, so no keys were shared: check "
            + "share.health_authority_id and share.publish_url, then ask the health authority for a new code"
        #expect(status.lastOutcome?.kind == .failed)
        #expect(status.lastOutcome?.message == expected)
        #expect(!status.holdsToken && !status.holdsCertificate && !status.holdsSecret && !status.holdsRevisionToken)
        #expect(try world.server.published().isEmpty)
        #expect(world.log(a).contains("warn key share: FAILED: \(expected)"))
        #expect(world.shareEvents(a).map { $0["outcome"] as? String ?? "" } == ["verified", "failed"])
        #expect(a.indicator?.buzzer.changes == 4, "two beeps (with five slow blinks) say the share failed")
        let leaks = try world.leaks(of: try world.secrets(of: a, codes: [code], tokens: [token]), from: a)
        #expect(leaks.isEmpty, "\(leaks)")
    }

    /// The key server drops a key: the rest are stored, staff see how many and why, the revision token is kept.
    @Test func aPartialFailureSaysWhatWasDroppedAndKeepsTheRevisionToken() throws {
        let (world, a, code, token) = try Self.verifiedBadge(seed: 145)
        try world.server.fault(#"{"server": "keyserver", "kind": "partial-failure", "drop": 1}"#)
        #expect(try world.runThroughPublishing(a))
        let status = world.share(a)
        #expect(status.lastOutcome?.kind == .partiallyPublished)
        let message = try #require(status.lastOutcome?.message)
        #expect(message.hasPrefix("the key server stored 1 of 2 keys of 2021-05-30 to 2021-05-31 and dropped the rest: "), "\(message)")
        #expect(status.lastOutcome?.warnings.count == 1 && status.lastOutcome?.insertedExposures == 1)
        #expect(status.holdsRevisionToken && status.publishedKeys == 2)
        #expect(try world.server.published().count == 1)
        #expect(world.shareEvents(a).last?["outcome"] as? String == "partiallyPublished")
        #expect(a.indicator?.buzzer.changes == 2, "keys reached the key server: one beep")
        #expect((world.shareEvents(a).last?["warnings"] as? [String])?.count == 1)
        #expect(world.log(a).contains("warn key share: \(message)"))
        let leaks = try world.leaks(of: try world.secrets(of: a, codes: [code], tokens: [token]), from: a)
        #expect(leaks.isEmpty, "\(leaks)")
    }

    /// Without consent — no `--yes` on the socket or a pipe, "no" at the terminal — nothing leaves the badge:
    /// the servers record no request at all.
    @Test func withoutConsentNothingLeavesTheBadge() throws {
        let world = try ShareWorld(start: Self.failureStart, seed: 146)
        let a = try world.addBadge("A", keySync: false)
        world.run(to: Self.consent)
        let code = try world.issueCode()
        let refusal = "keys share needs consent: add --yes (on a terminal the console asks instead)"
        #expect(try world.error("keys share \(code)", on: a) == refusal)
        #expect(try world.error("keys share \(code) --test-date 2021-05-31", on: a, channel: .pipe) == refusal)
        guard case .confirm(let question) = world.table(a).execute("keys share \(code) --yes", channel: .terminal) else {
            throw TestFailure("a terminal asks before sharing, even with --yes")
        }
        #expect(question.prompt == "keys share: type yes to confirm: ", "the question does not repeat the code")
        guard case .error(let declined) = try world.answer(question.answer("no")) else {
            throw TestFailure("answering no is a refusal")
        }
        #expect(declined == "keys share: not confirmed, nothing done")
        #expect(try world.error("keys share cancel", on: a) == "keys share cancel needs consent: add --yes (on a terminal the console asks instead)")
        #expect(try world.error("keys share cancel --yes", on: a) == "no share is under way")
        world.run(to: Self.consent + 2 * Self.day)
        #expect(try world.server.requests().isEmpty, "the servers saw no request")
        #expect(world.share(a).phase == .idle && world.share(a).lastOutcome == nil)
        #expect(!FileManager.default.fileExists(atPath: a.dataDirectory + "/share"))
    }

    /// A share survives a restart, and a cancelled one (or one wiped) never publishes.
    @Test func aShareSurvivesARestartAndACancelledOneNeverPublishes() throws {
        let (world, a, code, token) = try Self.verifiedBadge(seed: 147)
        a.agent.stop()
        // As on a real restart, what the old agent started has ended: its notify.command children, which in a
        // simulation share the test's process and briefly hold what it held.
        world.settle(a)
        let restarted: SimulatedBadge
        do { restarted = try world.addBadge("A", keySync: false) } catch { throw TestFailure("restarting A: \(error)") }
        #expect(world.share(restarted).phase == .waiting, "\(world.share(restarted))")
        #expect(world.share(restarted).publishAfter == world.share(a).publishAfter)
        #expect(world.log(restarted).contains { $0.hasPrefix("info key share: resuming the share of 2021-05-31T12:00:00Z") })
        #expect(try world.runThroughPublishing(restarted))
        #expect(world.share(restarted).lastOutcome?.kind == .published)
        #expect(try world.server.published().count == 2)

        // A second badge whose staff cancel: nothing more leaves it.
        let b = try world.addBadge("B", keySync: false)
        let second = try world.issueCode()
        #expect(try world.text("keys share \(second) --yes", on: b).hasPrefix("code accepted"))
        let secondToken = try #require(world.shareFileValue(b, "token"))
        let sent = try world.apiRequests().count
        #expect(try world.text("keys share cancel --yes", on: b)
                == "cancelled by staff: no keys were shared, and the code's verification was discarded")
        #expect(world.shareFileValue(b, "token") == nil)
        world.run(to: world.sim.unixSeconds + Self.day)
        #expect(try world.apiRequests().count == sent, "a cancelled share sends nothing")
        #expect(world.shareEvents(b).map { $0["outcome"] as? String ?? "" } == ["verified", "cancelled"])

        // wipe takes a share under way with the keys it is about.
        let third = try world.issueCode()
        #expect(try world.text("keys share \(third) --yes", on: b).hasPrefix("code accepted"))
        _ = try world.execute("wipe --yes", on: b)
        #expect(world.share(b).phase == .idle && world.shareFileValue(b, "token") == nil)
        #expect(world.share(b).lastOutcome?.message == "deleted by wipe: no keys were shared")
        for badge in [restarted, b] {
            let leaks = try world.leaks(of: try world.secrets(of: badge, codes: [code, second, third], tokens: [token, secondToken]),
                                        from: badge)
            #expect(leaks.isEmpty, "\(leaks)")
        }
    }
}
