@testable import KeyShare
import ENCore
import Testing

/// The key share's flow on `ShareMachine` alone: no process, socket, file or loop. Each test names the test
/// whose rule it pins down here: against the Python test health authority (AgentTests/KeyShareEndToEndTests),
/// or against a scripted one on a loop (AgentTests/KeyShareTests).
@Suite struct ShareMachineTests {
    typealias Bench = ShareMachineBench
    /// 2021-06-02T00:00:00Z: the day of consent ends.
    static let midnight: Int64 = 1_622_592_000

    static func string(_ value: JSONValue?) -> String? { if case .string(let text)? = value { text } else { nil } }
    static func number(_ value: JSONValue?) -> Int64? { if case .number(let n)? = value { Int64(n) } else { nil } }

    /// Mirrors aSharedBadgeWarnsTheBadgeItMetAndNoOther (the code accepted, and nothing more before the day of
    /// consent has ended): the code goes out at once, padded; the answer says when the keys will go.
    @Test func theCodeIsCheckedAtOnceAndNothingMoreLeavesBeforeTheDayOfConsentHasEnded() throws {
        var bench = Bench()
        bench.startService()
        try bench.share(testDate: UTCDay(isoDate: "2021-06-01"))
        let verify = try #require(bench.sent.first?.request)
        #expect(verify.url == "http://ha.test/api/verify" && verify.body.count == 1000)
        #expect(verify.headers.contains("X-API-Key: the-api-key") && !verify.headers.contains("X-Chaff: 1"))
        let status = try #require(try bench.answers.first?.get())
        #expect(status.phase == .waiting && status.holdsToken && status.testDate?.description == "2021-06-01")
        let publishAfter = try #require(status.publishAfter)
        #expect(publishAfter >= Self.midnight + 7500 && publishAfter <= Self.midnight + 9300,
                "past 02:00, when the day's last key may be distributed, at a random time")
        let message = try #require(bench.outcomes.first?.message)
        #expect(message.hasPrefix("code accepted: a confirmed test (test date 2021-06-01); the keys of complete days are "
                                  + "published after 2021-06-02T02:"), "\(message)")
        #expect(bench.onDisk.pending?.token == Bench.token, "the token is on disk before staff are answered")

        bench.run(until: publishAfter - 1)
        #expect(bench.endpoints == [.verify], "nothing more before then")
        bench.run(until: publishAfter)
        #expect(bench.endpoints == [.verify, .certificate, .publish], "at the time set, the certificate and the publish")
        #expect(bench.sent.dropFirst().allSatisfy { $0.at == publishAfter })
    }

    /// Mirrors aSharedBadgeWarnsTheBadgeItMetAndNoOther (exactly the keys of complete days, none on air; each body
    /// padded to its size; the words staff see) and theCertificateCoversExactlyTheKeysPublished…: the certificate's
    /// HMAC covers exactly the keys the publish carries, under the secret kept with the certificate.
    @Test func theCertificateCoversExactlyTheKeysOfCompleteDaysAndThePublishSendsThem() throws {
        var bench = Bench()
        bench.startService()
        try bench.share()
        let publishAfter = try #require(bench.status.publishAfter)
        bench.run(until: publishAfter - 60)
        bench.addTodaysKey()
        bench.runUntilIdle()
        #expect(bench.sent.map(\.request.body.count) == [1000, 2000, 5000])
        let complete = bench.keys.prefix(3).map { PublishedKey($0) }
        #expect(bench.keys.count == 4, "the key on air is the badge's too")
        let secrets = bench.saved.compactMap { $0.pending?.secret }
        let secret = try #require(secrets.first)
        let certificate = try #require(bench.bodies(.certificate).first)
        #expect(Self.string(certificate["token"]) == Bench.token)
        let hmac = try ExposureKeyHMAC.base64(complete, secret: secret)
        #expect(Self.string(certificate["ekeyhmac"]) == hmac)
        let publish = try #require(bench.bodies(.publish).first)
        guard case .array(let sentKeys)? = publish["temporaryExposureKeys"] else {
            Issue.record("the publish carries the keys: \(publish)")
            return
        }
        let carried = sentKeys.compactMap { key -> String? in
            guard case .object(let k) = key else { return nil }
            return "\(Self.string(k["key"]) ?? "") \(Self.number(k["rollingStartNumber"]) ?? 0)"
        }
        #expect(carried == complete.map { "\(Base64.encode($0.keyData.bytes)) \($0.rollingStartNumber.value)" },
                "the three complete days, not the key on air")
        #expect(Self.string(publish["verificationPayload"]) == Bench.certificate)
        #expect(Self.string(publish["healthAuthorityID"]) == "ha-id" && publish["revisionToken"] == nil)
        #expect(!(bench.sent.last?.request.headers.contains { $0.hasPrefix("X-API-Key") } ?? true),
                "the key server is not given the API key")
        #expect(bench.outcomes.map(\.kind) == [.verified, .published])
        #expect(bench.outcomes.last?.message == "shared 3 key(s) of 2021-05-30 to 2021-06-01 with the key server (3 stored)")
        #expect(bench.outcomes.last?.keys == 3 && bench.outcomes.last?.insertedExposures == 3)
        let done = bench.status
        #expect(done.phase == .idle && done.holdsRevisionToken && done.publishedKeys == 3)
        #expect(!done.holdsToken && !done.holdsCertificate && !done.holdsSecret)
    }

    /// Mirrors aRestartBetweenTheCertificateAndThePublish… and the record checks of the end-to-end tests: the
    /// certificate, its secret and keys are on disk (and the used token gone) before the publish goes out, and
    /// every outcome is on disk before the log and notify.command hear of it.
    @Test func whatARequestNeedsIsOnDiskBeforeItGoesOut() throws {
        var bench = Bench()
        bench.startService()
        try bench.share()
        bench.runUntilIdle()
        let publish = try #require(bench.actions.firstIndex { if case .send(.publish, _) = $0 { true } else { false } })
        let certified = try #require(bench.actions.firstIndex {
            if case .saveRecord(let record) = $0 { record.pending?.certificate != nil } else { false }
        })
        #expect(certified < publish)
        guard case .saveRecord(let record) = bench.actions[certified], let pending = record.pending else { return }
        #expect(pending.token == nil, "a used token is not kept")
        #expect(pending.secret?.count == 32 && pending.keyStarts.count == 3 && pending.certificate == Bench.certificate)
        #expect(pending.certificateExpiresAt == bench.sent[1].at + 900, "a certificate that does not say lives 15 minutes")

        for (index, action) in bench.actions.enumerated() {
            guard case .notify(let outcome) = action else { continue }
            let before = bench.actions[..<index]
            #expect(before.contains { if case .saveRecord(let r) = $0 { r.outcome == outcome } else { false } },
                    "\(outcome.kind) is on disk before anyone is told")
        }
        #expect(bench.onDisk.pending == nil && bench.onDisk.outcome?.kind == .published)
        #expect(bench.onDisk.publication?.revisionToken == "rev1")
    }

    /// Mirrors the leak checks of every end-to-end test: nothing staff or the log see holds the code, the token,
    /// the certificate, the secret or a key.
    @Test func noSecretReachesTheLogTheOutcomesOrTheAnswers() throws {
        var bench = Bench()
        bench.startService()
        try bench.share("73019462")
        bench.runUntilIdle()
        let secrets = bench.saved.compactMap { $0.pending?.secret }
        let secret = try #require(secrets.first)
        let words = ["73019462", Bench.token, Bench.certificate, "rev1", Hex.encode(secret), Base64.encode(secret)]
            + bench.keys.flatMap { [Hex.encode($0.keyData.bytes), Base64.encode($0.keyData.bytes)] }
        let seen = bench.logs + bench.outcomes.map(\.eventJSON) + bench.answers.map { "\($0)" } + ["\(bench.status)"]
        for text in seen {
            for word in words { #expect(!text.contains(word), "\(text)") }
        }
    }

    /// Mirrors aLaterShareResendsKeysOnlyWithTheRevisionToken for a key server that gives none: the keys it holds
    /// are never sent again, and a share with nothing new ends saying so.
    @Test func keysAKeyServerHoldsAreSentAgainOnlyWithItsRevisionToken() throws {
        var bench = Bench(days: 2)
        bench.server = { endpoint in
            endpoint == .publish ? Bench.ok(#"{"insertedExposures":2}"#) : Bench.healthy(endpoint)
        }
        bench.startService()
        try bench.share()
        bench.runUntilIdle()
        #expect(bench.outcomes.last?.kind == .published && !bench.status.holdsRevisionToken)
        bench.addTodaysKey()
        bench.run(for: 12 * 3600)
        try bench.share("87654321")
        bench.runUntilIdle()
        guard case .array(let again)? = bench.bodies(.publish).last?["temporaryExposureKeys"] else {
            Issue.record("a second publish")
            return
        }
        #expect(again.count == 1, "only the key not stored yet")
        #expect(bench.status.publishedKeys == 3)
    }
}
