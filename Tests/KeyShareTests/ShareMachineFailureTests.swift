import ENCore
@testable import KeyShare
import Testing

/// What goes wrong in a key share, and what staff are told, on `ShareMachine` alone. Each test names the test
/// whose rule it pins down here: against the Python test health authority (AgentTests/KeyShareEndToEndTests),
/// or against a scripted one on a loop (AgentTests/KeyShareTests).
@Suite struct ShareMachineFailureTests {
    typealias Bench = ShareMachineBench
    static let consent = Bench.consent
    static let day: Int64 = 86_400

    static func refusal(_ bench: Bench) -> String? {
        guard case .failure(.refused(let message))? = bench.answers.last else { return nil }
        return message
    }

    /// A JWT whose only claim is `exp`.
    static func jwt(expiringAt exp: Int64) -> String {
        let claims = Base64.encode(Array(#"{"exp":\#(exp)}"#.utf8)).replacing("+", with: "-").replacing("/", with: "_")
            .replacing("=", with: "")
        return "eyJhbGciOiJFUzI1NiJ9.\(claims).c2ln"
    }

    /// Mirrors refusedCodesSayWhatToDoAndKeepNothing: unknown, expired, used and other-type codes are refused at
    /// once with what to do, nothing is kept, and a good code right after still works.
    @Test func refusedCodesSayWhatToDoAndKeepNothing() throws {
        var bench = Bench(days: 2, start: Self.consent)
        bench.startService()
        let refusals = [
            (400, "code_invalid", "the health authority does not know this code, or it was already used: check the code, "
                + "or ask the health authority for a new one"),
            (400, "code_expired", "this code has expired: ask the health authority for a new one"),
            (412, "unsupported_test_type", "this code is for a kind of test result the badge does not share: ask the "
                + "health authority whether it is the right code"),
        ]
        for (status, code, words) in refusals {
            bench.server = { _ in Bench.answer(status, #"{"error":"server text","errorCode":"\#(code)"}"#) }
            try bench.share()
            #expect(Self.refusal(bench) == words)
            #expect(bench.status.phase == .idle && bench.record.pending == nil && bench.onDisk.pending == nil)
            #expect(bench.logs.last == "warn key share: \(words)")
        }
        #expect(bench.outcomes.map(\.kind) == [.refused, .refused, .refused])
        #expect(bench.status.lastOutcome?.kind == .refused)

        // The badge is not wedged: a good code goes through.
        bench.server = { Bench.healthy($0) }
        try bench.share()
        #expect(bench.status.phase == .waiting && bench.onDisk.pending?.token == Bench.token)
        #expect(bench.answers.last.map { (try? $0.get())?.phase } == .waiting)
    }

    /// Mirrors refusedCodesSayWhatToDoAndKeepNothing (typing mistakes) and withoutConsentNothingLeavesTheBadge:
    /// a mistyped code or date, missing settings or an untrusted clock stop the share before anything is sent.
    @Test func mistypedCodesAndDatesNeverLeaveTheBadge() {
        var bench = Bench(days: 2, start: Self.consent)
        bench.startService()
        func error(_ code: String = "12345678", testDate: UTCDay? = nil, symptomOnset: UTCDay? = nil) -> String {
            do throws(KeyShareError) { try bench.share(code, testDate: testDate, symptomOnset: symptomOnset) } catch {
                return error.description
            }
            return "accepted"
        }
        #expect(error("1234-5678") == "a verification code has only letters and digits: check what was typed")
        #expect(error("123").hasPrefix("a verification code has 6 to 20 letters and digits, this one has 3"))
        #expect(error(testDate: UTCDay(isoDate: "2021-06-01"))
                == "--test-date 2021-06-01 is after today (2021-05-31): check the date")
        #expect(error(symptomOnset: UTCDay(isoDate: "2021-04-01"))
                == "--symptom-onset 2021-04-01 is more than 28 days ago: the key server ignores such a date; check it, "
                + "or leave the option out")
        bench.trusted = false
        #expect(error().hasPrefix("the clock is not trusted yet"))
        bench.trusted = true
        var incomplete = Bench.settings
        incomplete.apiKey = nil
        bench.reconfigure(incomplete)
        #expect(error() == "keys share needs share.api_key (the health authority gives them): set it with "
                + "config set")
        #expect(bench.sent.isEmpty && bench.saved.isEmpty && bench.outcomes.isEmpty)
        #expect(throws: KeyShareError.nothingToCancel) { try bench.cancel() }
    }

    /// A verification server that cannot be reached when staff enter the code: nothing is kept, and the words say
    /// to enter it again rather than promising a retry.
    @Test func aCodeThatCannotBeCheckedNowIsTheStaffsToEnterAgain() throws {
        var bench = Bench(days: 2, start: Self.consent)
        bench.server = { _ in .failure(.unreachable("connection refused")) }
        bench.startService()
        try bench.share()
        #expect(Self.refusal(bench) == "the health authority's verification server could not check the code now "
                + "(connection refused): nothing was kept; enter the code again in a few minutes")
        #expect(bench.record.pending == nil && bench.status.phase == .idle)
    }

    /// Mirrors unreachableServersDelayThePublishUntilTheyAreBack: the token is kept while the verification
    /// server cannot be reached, retried with growing waits, staff told once; once it is back the certificate is
    /// used at once, a publish answered 503 is retried, and the keys are published.
    @Test func unreachableServersDelayThePublishUntilTheyAreBack() throws {
        var bench = try Bench.verified()
        bench.server = { endpoint in endpoint == .verify ? Bench.healthy(endpoint) : .failure(.unreachable("connection refused")) }
        let due = try #require(bench.status.nextAttemptAt)
        while bench.status.attempts < 3 { bench.run(for: 10) }
        let status = bench.status
        #expect(status.phase == .retrying && status.holdsToken)
        #expect(status.lastError == "cannot reach the health authority's verification server (connection refused): the "
                + "badge will try again")
        #expect(status.state.hasPrefix("attempt 3 failed (cannot reach the health authority's verification server"))
        #expect(bench.onDisk.pending?.token == Bench.token, "the token is kept while the server cannot be reached")
        #expect(bench.outcomes.map(\.kind) == [.verified, .retrying], "told once, not at every try")
        #expect(bench.logs.filter { $0.hasPrefix("warn key share: cannot reach") }.count == 1)
        let tries = bench.sent.filter { $0.endpoint == .certificate }.map(\.at)
        #expect(tries.first == due)
        #expect(bench.outcomes.last?.retryAt == tries.dropFirst().first, "the retry staff were told of is the next try")
        for (attempt, (earlier, later)) in zip(tries, tries.dropFirst()).enumerated() {
            let base = Double(30 << attempt)
            #expect(Double(later - earlier) >= base * 0.5 - 1 && Double(later - earlier) <= base * 1.5 + 1,
                    "backoff from 30 s, doubled, with jitter: \(tries)")
        }

        // Back, but the key server answers 503 twice.
        var publishes = 0
        bench.server = { endpoint in
            guard endpoint == .publish else { return Bench.healthy(endpoint) }
            publishes += 1
            return publishes <= 2 ? Bench.answer(503, "") : Bench.healthy(endpoint)
        }
        bench.runUntilIdle()
        #expect(bench.endpoints.suffix(4) == [.certificate, .publish, .publish, .publish])
        #expect(bench.outcomes.map(\.kind) == [.verified, .retrying, .published])
        #expect(bench.outcomes.last?.message == "shared 2 key(s) of 2021-05-30 to 2021-05-31 with the key server (3 stored)")
        #expect(!bench.status.holdsToken && !bench.status.holdsCertificate)
    }

    /// Mirrors aTokenThatExpiresBeforePublishingIsReported: the token is kept until it expires (24 h when it does
    /// not say), then the share ends asking for a new code — reported, never dropped silently.
    @Test func aTokenThatExpiresBeforePublishingIsReported() throws {
        var bench = try Bench.verified()
        bench.server = { endpoint in endpoint == .verify ? Bench.healthy(endpoint) : .failure(.unreachable("timed out")) }
        let expiry = try #require(bench.status.usableUntil)
        #expect(expiry == Self.consent + Self.day, "a token that does not say lives 24 h")
        bench.run(until: expiry - 3600)
        #expect(bench.status.phase == .retrying && bench.status.attempts >= 5, "\(bench.status)")
        #expect(bench.onDisk.pending?.token == Bench.token, "an hour before it expires the token is still kept")
        bench.run(until: expiry + 60)
        let status = bench.status
        #expect(status.phase == .idle && !status.holdsToken && bench.onDisk.pending == nil)
        let outcome = try #require(status.lastOutcome)
        #expect(outcome.kind == .expired && outcome.at == expiry)
        #expect(outcome.message == "the code's verification expired at 2021-06-01T12:00:00Z before the keys could be "
                + "shared (last error: cannot reach the health authority's verification server (timed out): the badge will "
                + "try again): nothing was shared; ask the health authority for a new code")
        #expect(bench.logs.contains("warn key share: FAILED: \(outcome.message)"))
        #expect(bench.outcomes.map(\.kind) == [.verified, .retrying, .expired])
    }

    /// A token that says when it lapses is believed within 30 days; one that lapses before the day of consent
    /// has ended has the days before today published half an hour before it does, and the words say so.
    @Test func aShortTokenPublishesTheDaysBeforeTodayInTime() throws {
        let exp = Self.consent + 6 * 3600
        var bench = Bench(days: 2, start: Self.consent)
        bench.server = { endpoint in
            endpoint == .verify ? Bench.ok(#"{"testtype":"likely","token":"\#(Self.jwt(expiringAt: exp))"}"#)
                : Bench.healthy(endpoint)
        }
        bench.startService()
        try bench.share()
        #expect(bench.status.usableUntil == exp && bench.status.publishAfter == exp - 1800)
        #expect(bench.outcomes.first?.message == "code accepted: a likely result; the keys of complete days are "
                + "published after 2021-05-31T17:30:00Z; the verification expires at 2021-05-31T18:00:00Z, before today's "
                + "key is complete, so only the days before today are shared")
        bench.runUntilIdle()
        #expect(bench.outcomes.last?.message == "shared 1 key(s) of 2021-05-30 with the key server (3 stored)")

        var distant = Bench(days: 2, start: Self.consent)
        distant.server = { endpoint in
            Bench.ok(#"{"testtype":"confirmed","token":"\#(Self.jwt(expiringAt: Self.consent + 40 * Self.day))"}"#)
        }
        distant.startService()
        try distant.share()
        #expect(distant.status.usableUntil == Self.consent + Self.day, "a claim beyond 30 days is not believed")
    }

    /// Mirrors aCertificateThatRunsOutIsReportedWithTheLastError: a publish answered 503 is retried within the
    /// certificate's 15 minutes, then the share ends with the last error.
    @Test func aCertificateThatRunsOutIsReportedWithTheLastError() throws {
        var bench = try Bench.verified()
        bench.server = { endpoint in endpoint == .publish ? Bench.answer(503, "") : Bench.healthy(endpoint) }
        bench.runUntilIdle()
        #expect(bench.outcomes.last?.kind == .expired)
        #expect(bench.outcomes.last?.message == "the certificate ran out before the key server confirmed the keys (last "
                + "error: the key server is not answering properly (HTTP 503): the badge will try again): ask the health "
                + "authority for a new code")
        let publishes = bench.sent.filter { $0.endpoint == .publish }
        #expect(publishes.count >= 5 && publishes.count <= 15, "retried within the certificate's life: \(publishes.count)")
        #expect((publishes.last?.at ?? 0) - (publishes.first?.at ?? 0) < 900)
        #expect(bench.onDisk.pending == nil, "nothing of the share is kept")
    }

    /// Mirrors aRejectedCertificateIsReportedAndNothingIsStored: a refusal only a new code can mend ends the share
    /// at once; one the settings caused at the key server ends it too, since the certificate is used up.
    @Test func aRejectedCertificateEndsTheShareWithWhatToCheck() throws {
        var bench = try Bench.verified()
        bench.server = { endpoint in
            endpoint == .publish ? Bench.answer(401, #"{"code":"health_authority_verification_certificate_invalid"}"#)
                : Bench.healthy(endpoint)
        }
        bench.runUntilIdle()
        let expected = "the key server refused the health authority's certificate, so no keys were shared: check "
            + "share.health_authority_id and share.publish_url, then ask the health authority for a new code"
        #expect(bench.outcomes.map(\.kind) == [.verified, .failed] && bench.outcomes.last?.message == expected)
        #expect(bench.logs.contains("warn key share: FAILED: \(expected)"))
        #expect(bench.endpoints == [.verify, .certificate, .publish], "not retried")
        let status = bench.status
        #expect(!status.holdsToken && !status.holdsCertificate && !status.holdsSecret && !status.holdsRevisionToken)

        var misconfigured = try Bench.verified()
        misconfigured.server = { endpoint in
            endpoint == .publish ? Bench.answer(400, #"{"code":"unknown_health_authority_id"}"#) : Bench.healthy(endpoint)
        }
        misconfigured.runUntilIdle()
        #expect(misconfigured.outcomes.last?.kind == .failed)
        #expect(misconfigured.outcomes.last?.message.hasSuffix("; the code's verification is used up: ask the health "
                                                               + "authority for a new code") == true)
    }

    /// Mirrors aPartialFailureSaysWhatWasDroppedAndKeepsTheRevisionToken: the rest are stored, staff see how many
    /// and the key server's words (printable, at most five), and the revision token is kept.
    @Test func aPartialFailureSaysWhatWasDroppedAndKeepsTheRevisionToken() throws {
        var bench = try Bench.verified()
        bench.server = { endpoint in
            endpoint == .publish ? Bench.ok(#"{"revisionToken":"dA==","insertedExposures":1,"code":"partial_failure","#
                                            + #""error":"x","warnings":["key 2 was not\u0007 imported"]}"#)
                : Bench.healthy(endpoint)
        }
        bench.runUntilIdle()
        let outcome = try #require(bench.outcomes.last)
        #expect(outcome.kind == .partiallyPublished && outcome.insertedExposures == 1 && outcome.keys == 2)
        #expect(outcome.message == "the key server stored 1 of 2 keys of 2021-05-30 to 2021-05-31 and dropped the rest: "
                + "key 2 was not? imported")
        #expect(outcome.warnings == ["key 2 was not? imported"])
        #expect(bench.logs.contains("warn key share: \(outcome.message)"))
        #expect(bench.status.holdsRevisionToken && bench.status.publishedKeys == 2)
        #expect(outcome.keysReachedServer == true)
    }

    /// A badge with no key of a complete day has nothing to share: it says so, and sends nothing.
    @Test func aBadgeWithNoKeyOfACompleteDaySharesNothing() throws {
        var bench = Bench(days: 0, start: Self.consent)
        bench.startService()
        try bench.share()
        bench.runUntilIdle()
        #expect(bench.endpoints == [.verify])
        #expect(bench.outcomes.last?.kind == .failed)
        #expect(bench.outcomes.last?.message == "there are no keys of complete days to share (the badge has no key from "
                + "before today): nothing was sent")
    }
}
