@testable import AgentBase
import ENCore
import EventLoop
import Foundation
@testable import KeyShare
import Network
import SystemIO
import Testing
import TestSupport

/// The key share's rules in virtual time against a scripted health authority: what each request carries (the
/// HMAC over exactly the keys published, the headers, the padded sizes), the revision token, a token kept
/// through refusals it survives, a restart between the certificate and the publish, and chaff.
@Suite struct KeyShareTests {
    /// 2021-06-01T12:00:00Z.
    static let noon: Int64 = 1_622_548_800

    /// A health authority that answers as scripted, on the loop, 10 ms after each request.
    final class ScriptedAuthority: NetworkTransport {
        let loop: VirtualLoop
        private(set) var requests: [HealthAuthorityRequest] = []
        /// When each request came, in the loop's time.
        private(set) var times: [MonotonicInstant] = []
        var publishes = 0
        /// Answers by path; nil is a successful answer of each API. (A script that called `success` itself
        /// would hold its bench, and the bench this authority: neither would ever be freed.)
        var answer: (HealthAuthorityRequest) -> Result<HealthAuthorityResponse, HealthAuthorityTransportFailure>? = { _ in nil }

        init(loop: VirtualLoop) {
            self.loop = loop
        }

        func success(_ request: HealthAuthorityRequest) -> Result<HealthAuthorityResponse, HealthAuthorityTransportFailure> {
            let body: String
            if request.url.hasSuffix("/api/verify") {
                body = #"{"testtype":"confirmed","token":"tok.en\#(requests.count)","padding":"x"}"#
            } else if request.url.hasSuffix("/api/certificate") {
                body = #"{"certificate":"aGVhZA.Y2xhaW1z.c2ln","padding":"x"}"#
            } else {
                publishes += 1
                body = #"{"revisionToken":"rev\#(publishes)","insertedExposures":3}"#
            }
            return .success(HealthAuthorityResponse(status: 200, body: Array(body.utf8)))
        }

        func send(_ request: HealthAuthorityRequest,
                  completion: @escaping (Result<HealthAuthorityResponse, HealthAuthorityTransportFailure>) -> Void) -> () -> Void {
            requests.append(request)
            times.append(loop.now)
            let result = answer(request) ?? success(request)
            let timer = loop.schedule(after: .milliseconds(10)) { completion(result) }
            return { [loop] in loop.cancel(timer) }
        }

        /// A health authority serves no key files: a key share never asks for one.
        func fetch(_ request: HTTPClient.Request,
                   completion: @escaping (Result<[UInt8], HTTPClient.Failure>) -> Void) -> () -> Void {
            refuse(request, completion)
        }

        func fetch(_ request: HTTPClient.Request, into descriptor: Int32, path: String,
                   completion: @escaping (Result<Int, HTTPClient.Failure>) -> Void) -> () -> Void {
            refuse(request, completion)
        }

        private func refuse<T>(_ request: HTTPClient.Request,
                               _ completion: @escaping (Result<T, HTTPClient.Failure>) -> Void) -> () -> Void {
            Issue.record("the key share fetched \(request.url)")
            let timer = loop.schedule(after: .zero) { completion(.failure(.httpStatus(404))) }
            return { [loop] in loop.cancel(timer) }
        }

        func bodies(_ suffix: String) -> [[String: Any]] {
            requests.filter { $0.url.hasSuffix(suffix) && !$0.headers.contains("X-Chaff: 1") }.compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.body)) as? [String: Any]
            }
        }
    }

    /// One badge's key share with keys for the days before `noon`'s (and that day's), in a temporary folder.
    final class Bench {
        let folder = TemporaryDirectory()
        let loop = VirtualLoop(startUnixNanoseconds: KeyShareTests.noon * 1_000_000_000)
        let authority: ScriptedAuthority
        let clock: Clock
        var keys: [TemporaryExposureKey]
        var lines: [String] = []
        var settings = KeyShareSettings()
        private(set) var share: KeyShare!

        init(days: Int = 3) {
            authority = ScriptedAuthority(loop: loop)
            let log = Logger(level: .debug) { _, _ in }
            clock = Clock(loop: loop, policy: .trusted, log: log)
            let today = ENIntervalNumber(unixSeconds: KeyShareTests.noon)!.dayStart.value
            var random = SplitMix64(seed: 7)
            keys = (0..<days).reversed().map { back in
                TemporaryExposureKey(keyData: Bytes16((0..<16).map { _ in UInt8(truncatingIfNeeded: random.next()) })!,
                                     rollingStart: ENIntervalNumber(today - UInt32(back) * 144))
            }
            settings.verificationURL = "http://ha.test"
            settings.apiKey = "the-api-key"
            settings.publishURL = "http://ks.test/v1/publish"
            settings.healthAuthorityID = "ha-id"
            start()
        }

        /// A share service as the agent makes one, started: what `DATA/share` holds is resumed.
        func start() {
            share?.stop()
            let log = Logger(level: .debug) { [unowned self] level, message in lines.append("\(level) \(message)") }
            share = KeyShare(loop: loop, clock: clock, ownKeys: { [unowned self] in keys }, transport: authority,
                             settings: settings, notifier: ExposureNotifier(loop: loop, settings: .init(), log: log),
                             fileSystem: PosixFileSystem(), dataDirectory: folder.path, generator: ServiceRandom(seed: 3),
                             log: log)
            share.start()
        }

        var now: Int64 { loop.unixNanoseconds / 1_000_000_000 }

        /// `keys share CODE`, answered.
        @discardableResult
        func share(_ code: String = "12345678", testDate: UTCDay? = nil) throws -> Result<KeyShareStatus, KeyShareError> {
            var result: Result<KeyShareStatus, KeyShareError>?
            try share.share(code: code, testDate: testDate, symptomOnset: nil) { result = $0 }
            loop.run(for: .seconds(1))
            return try #require(result)
        }

        /// Runs until the share under way has ended (or `limit` passed).
        func runUntilIdle(limit: Duration = .seconds(2 * 86_400)) {
            let end = loop.now + limit
            while share.status.phase != .idle && loop.now < end { loop.run(for: .seconds(60)) }
        }

        /// A new day's key, as the advertiser makes one at midnight.
        func addTodaysKey() {
            let today = ENIntervalNumber(unixSeconds: now)!.dayStart
            if !keys.contains(where: { $0.rollingStart == today }) {
                keys.append(TemporaryExposureKey(keyData: Bytes16((0..<16).map { UInt8(truncatingIfNeeded: today.value >> $0) })!,
                                                 rollingStart: today))
            }
        }
    }

    @Test func theCertificateCoversExactlyTheKeysPublishedAndNoneStillOnAir() throws {
        let bench = Bench()
        let verified = try bench.share().get()
        #expect(verified.phase == .waiting && verified.holdsToken)
        let verify = try #require(bench.authority.requests.first)
        #expect(verify.url == "http://ha.test/api/verify" && verify.body.count == 1000)
        #expect(verify.headers.contains("X-API-Key: the-api-key") && verify.headers.contains("Content-Type: application/json"))
        let publishAfter = try #require(verified.publishAfter)
        #expect(publishAfter >= 1_622_592_000 + 7500 && publishAfter <= 1_622_592_000 + 9300)

        // Nothing before then, even with the next day's key on air.
        bench.loop.run(until: bench.loop.now + .seconds(publishAfter - bench.now - 1))
        bench.addTodaysKey()
        #expect(bench.authority.requests.count == 1)
        bench.runUntilIdle()
        #expect(bench.share.status.lastOutcome?.kind == .published)
        let certificate = try #require(bench.authority.bodies("/api/certificate").first)
        let publish = try #require(bench.authority.bodies("/v1/publish").first)
        #expect(certificate["token"] as? String == "tok.en1", "the token /api/verify answered")
        let sent = try #require(publish["temporaryExposureKeys"] as? [[String: Any]])
        let published = sent.map { key in
            PublishedKey(keyData: Bytes16(Array(Data(base64Encoded: key["key"] as! String)!))!,
                         rollingStartNumber: ENIntervalNumber(UInt32(key["rollingStartNumber"] as! Int)),
                         rollingPeriod: UInt32(key["rollingPeriod"] as! Int), transmissionRisk: key["transmissionRisk"] as! Int)
        }
        // The three days before today's, not today's key.
        #expect(published.map(\.keyData) == bench.keys.prefix(3).map(\.keyData))
        let secret = Array(try #require(Data(base64Encoded: publish["hmacKey"] as? String ?? "")))
        #expect(secret.count == 32)
        #expect(certificate["ekeyhmac"] as? String == (try ExposureKeyHMAC.base64(published, secret: secret)),
                "the certificate's HMAC covers exactly the keys published, under the secret sent with them")
        #expect(publish["verificationPayload"] as? String == "aGVhZA.Y2xhaW1z.c2ln" && publish["healthAuthorityID"] as? String == "ha-id")
        #expect(publish["revisionToken"] == nil)
        let publishRequest = try #require(bench.authority.requests.last)
        #expect(!publishRequest.headers.contains { $0.hasPrefix("X-API-Key") }, "the key server is not given the API key")
        #expect(bench.authority.requests.map(\.body.count) == [1000, 2000, 5000])
    }

    @Test func aLaterShareResendsKeysOnlyWithTheRevisionToken() throws {
        let bench = Bench(days: 2)
        _ = try bench.share().get()
        bench.runUntilIdle()
        #expect(bench.share.status.holdsRevisionToken && bench.share.status.publishedKeys == 2)
        bench.addTodaysKey()
        // The next day a second code (a likely result confirmed, say): its publish re-sends with the token.
        bench.loop.run(for: .seconds(12 * 3600))
        _ = try bench.share("87654321").get()
        bench.runUntilIdle()
        let second = try #require(bench.authority.bodies("/v1/publish").last)
        #expect(second["revisionToken"] as? String == "rev1")
        #expect((second["temporaryExposureKeys"] as? [Any])?.count == 3)

        // A key server that gives no revision token: the keys it stored are never sent again.
        let other = Bench(days: 2)
        other.authority.answer = { request in
            guard request.url.hasSuffix("/v1/publish") else { return nil }
            return .success(HealthAuthorityResponse(status: 200, body: Array(#"{"insertedExposures":2}"#.utf8)))
        }
        _ = try other.share().get()
        other.runUntilIdle()
        other.addTodaysKey()
        other.loop.run(for: .seconds(12 * 3600))
        _ = try other.share("87654321").get()
        other.runUntilIdle()
        let resent = try #require(other.authority.bodies("/v1/publish").last)
        #expect(resent["revisionToken"] == nil)
        #expect((resent["temporaryExposureKeys"] as? [Any])?.count == 1, "only the key not stored yet")
    }

    @Test func aRefusedAPIKeyKeepsTheTokenUntilTheSettingsAreFixed() throws {
        let bench = Bench()
        _ = try bench.share().get()
        bench.authority.answer = { request in
            guard request.url.hasSuffix("/api/certificate") else { return nil }
            return .success(HealthAuthorityResponse(status: 401, body: Array(#"{"error":"unauthorized"}"#.utf8)))
        }
        bench.loop.run(for: .seconds(20 * 3600))
        let status = bench.share.status
        #expect(status.phase == .retrying && status.holdsToken)
        #expect(status.lastError == "the health authority refused the badge's API key: check share.api_key")
        let tries = zip(bench.authority.requests, bench.authority.times).filter { $0.0.url.hasSuffix("/api/certificate") }.map(\.1)
        #expect(tries.count >= 5, "tried again: \(tries.count)")
        #expect(zip(tries, tries.dropFirst()).allSatisfy { $1 - $0 >= .seconds(3599) && $1 - $0 <= .seconds(3601) },
                "hourly, not in a loop")
        // Fixed: tried at once, and published.
        bench.authority.answer = { _ in nil }
        bench.settings.apiKey = "the-right-key"
        bench.share.reconfigure(bench.settings)
        bench.loop.run(for: .seconds(1))
        #expect(bench.share.status.lastOutcome?.kind == .published)
        #expect(bench.authority.requests.last?.url == "http://ks.test/v1/publish")
    }

    @Test func aRestartBetweenTheCertificateAndThePublishSendsWhatTheCertificateCovers() throws {
        let bench = Bench()
        _ = try bench.share().get()
        // The key server is down: the certificate is held, the publish retried.
        bench.authority.answer = { request in
            guard request.url.hasSuffix("/v1/publish") else { return nil }
            return .failure(.unreachable("connection refused"))
        }
        let due = try #require(bench.share.status.nextAttemptAt)
        bench.loop.run(for: .seconds(due - bench.now + 30))
        #expect(bench.share.status.holdsCertificate && bench.share.status.holdsSecret && !bench.share.status.holdsToken)
        let record = try String(contentsOfFile: bench.folder.path + "/share", encoding: .utf8)
        #expect(record.contains("certificate aGVhZA.Y2xhaW1z.c2ln\n") && record.contains("secret "))
        #expect(!record.contains("token tok"), "a used token is not kept")

        // A restart (a new service on the same folder), the key server back: the same keys under the same secret.
        bench.authority.answer = { _ in nil }
        bench.start()
        bench.loop.run(for: .seconds(300))
        #expect(bench.share.status.lastOutcome?.kind == .published)
        let publishes = bench.authority.bodies("/v1/publish")
        let certificate = try #require(bench.authority.bodies("/api/certificate").first)
        #expect(bench.authority.bodies("/api/certificate").count == 1)
        let last = try #require(publishes.last)
        let keys = (last["temporaryExposureKeys"] as? [[String: Any]] ?? []).map { key in
            PublishedKey(keyData: Bytes16(Array(Data(base64Encoded: key["key"] as! String)!))!,
                         rollingStartNumber: ENIntervalNumber(UInt32(key["rollingStartNumber"] as! Int)))
        }
        let secret = Array(Data(base64Encoded: last["hmacKey"] as? String ?? "") ?? Data())
        #expect(certificate["ekeyhmac"] as? String == (try ExposureKeyHMAC.base64(keys, secret: secret)))
    }

    @Test func aCertificateThatRunsOutIsReportedWithTheLastError() throws {
        let bench = Bench()
        _ = try bench.share().get()
        bench.authority.answer = { request in
            guard request.url.hasSuffix("/v1/publish") else { return nil }
            return .success(HealthAuthorityResponse(status: 503, body: []))
        }
        bench.runUntilIdle()
        let outcome = try #require(bench.share.status.lastOutcome)
        #expect(outcome.kind == .expired)
        #expect(outcome.message == "the certificate ran out before the key server confirmed the keys (last error: the key "
                + "server is not answering properly (HTTP 503): the badge will try again): ask the health authority for a new code")
        let publishes = bench.authority.bodies("/v1/publish").count
        #expect(publishes >= 5 && publishes <= 15, "retried within the certificate's 15 minutes: \(publishes)")
        let record = (try? String(contentsOfFile: bench.folder.path + "/share", encoding: .utf8)) ?? ""
        #expect(!record.split(separator: "\n").contains { $0.hasPrefix("certificate ") || $0.hasPrefix("secret ") },
                "nothing of the share is kept: \(record)")
    }

    @Test func startingAShareNeedsTheSettingsAndATrustedClockAndValidDates() throws {
        let bench = Bench()
        bench.settings.apiKey = nil
        bench.settings.publishURL = nil
        bench.share.reconfigure(bench.settings)
        #expect(throws: KeyShareError.notConfigured(missing: ["share.api_key", "share.publish_url"])) { try bench.share() }
        #expect(KeyShareError.notConfigured(missing: ["share.api_key", "share.publish_url"]).description
                == "keys share needs share.api_key and share.publish_url (the health authority gives them): set them with config set")
        #expect(bench.share.status.phase == .notConfigured)
        #expect(bench.share.status.state == "not configured: share.api_key and share.publish_url have no value")
        bench.settings.apiKey = "k"
        bench.settings.publishURL = "http://ks.test/v1/publish"
        bench.share.reconfigure(bench.settings)
        #expect(throws: KeyShareError.badDate(option: "--test-date", reason: "2021-04-01 is more than 28 days ago: the key "
                                             + "server ignores such a date; check it, or leave the option out")) {
            try bench.share(testDate: UTCDay(isoDate: "2021-04-01"))
        }
        #expect(bench.authority.requests.isEmpty)
        _ = try bench.share().get()
        #expect(throws: KeyShareError.alreadyUnderWay(publishAfter: bench.share.status.publishAfter!)) { try bench.share("11112222") }
    }

    @Test func chaffGoesOutAtRandomShapedLikeRealRequests() throws {
        let bench = Bench()
        bench.settings.chaffPerDay = 12
        bench.share.reconfigure(bench.settings)
        bench.loop.run(for: .seconds(4 * 86_400))
        let chaff = bench.authority.requests.filter { $0.headers.contains("X-Chaff: 1") }
        #expect(chaff.count == bench.authority.requests.count, "nothing but chaff without a share")
        #expect(bench.share.chaffSent >= 24 && bench.share.chaffSent <= 72, "about 12 a day: \(bench.share.chaffSent)")
        let sizes = Dictionary(grouping: chaff, by: { String($0.url.split(separator: "/").last ?? "") }).mapValues { Set($0.map(\.body.count)) }
        #expect(sizes == ["verify": [1000], "certificate": [2000], "publish": [5000]], "\(sizes)")
        #expect(chaff.filter { $0.url.hasSuffix("/api/certificate") }.count == chaff.filter { $0.url.hasSuffix("/v1/publish") }.count)
        #expect(chaff.filter { !$0.url.hasSuffix("/v1/publish") }.allSatisfy { $0.headers.contains("X-API-Key: the-api-key") })
        // Off: none.
        let quiet = Bench()
        quiet.loop.run(for: .seconds(4 * 86_400))
        #expect(quiet.authority.requests.isEmpty)
    }

    @Test func theRecordKeepsWhatARestartNeedsAndDropsWhatIsDamaged() {
        var pending = ShareRecord.Pending(consentedAt: 100, testType: .likely, testDate: UTCDay(isoDate: "2021-06-01"),
                                          symptomOnset: nil, token: "t.o.k", tokenExpiresAt: 200, publishAfter: 150)
        pending.certificate = "c.e.rt"
        pending.certificateExpiresAt = 180
        pending.secret = [1, 2, 3]
        pending.keyStarts = [2_704_032, 2_704_176]
        pending.attempts = 2
        pending.retryAt = 170
        pending.lastError = "cannot reach\nthe key server"
        let record = ShareRecord(pending: pending,
                                 publication: .init(revisionToken: "rev", keyStarts: [1, 2], publishedAt: 90),
                                 outcome: ShareOutcome(kind: .partiallyPublished, message: "m", at: 95, keys: 2,
                                                       insertedExposures: 1, warnings: ["w1", "w2"]))
        let read = ShareRecord(text: record.text)
        var expected = record
        expected.pending?.lastError = "cannot reach the key server"
        #expect(read == expected)
        // A certificate without its secret cannot be used: dropped; the token still lets the share go on.
        let damaged = ShareRecord(text: record.text.replacingOccurrences(of: "secret 010203\n", with: ""))
        #expect(damaged.pending?.certificate == nil && damaged.pending?.token == "t.o.k")
        #expect(damaged.publication == record.publication)
        // Lapsed: a publication after 15 days, an outcome after 14.
        var old = record
        old.removeLapsed(at: 95 + 14 * 86_400)
        #expect(old.outcome == nil && old.publication != nil)
        old.removeLapsed(at: 90 + 15 * 86_400)
        #expect(old.publication == nil && old.pending != nil)
    }
}
