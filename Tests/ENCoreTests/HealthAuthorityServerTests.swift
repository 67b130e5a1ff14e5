import Foundation
import Glibc
import Testing
import TestSupport
@testable import ENCore

/// The request bodies and answer readers against Tools/healthauthority, which refuses what the real servers
/// refuse (unknown members, a MAC that does not cover exactly the keys, …): the whole upload, the errors
/// staff would see, and chaff.
@Suite(.serialized) struct HealthAuthorityServerTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Tools/healthauthority/healthauthority.py").path
    /// The servers' clock: 2026-11-28T12:00:00Z, so "today" is fixed.
    static let now: Int64 = 1_795_867_200

    static var available: Bool { HealthAuthorityTestServer.isAvailable }

    static func dailyKeys(days: UInt32) -> [TemporaryExposureKey] {
        let today = ENIntervalNumber(unixSeconds: now)!.dayStart.value
        var random = SystemRandomNumberGenerator()
        return (0...days).map { back in
            TemporaryExposureKey(keyData: Bytes16(low: random.next(), high: random.next()),
                                 rollingStart: ENIntervalNumber(today - back * 144))
        }
    }

    /// Verify, certificate, publish: the key server stores exactly the keys of complete days, the HMAC
    /// covering them, and every body has its padded size.
    @Test(.enabled(if: available, "Python's cryptography package is missing (pip install cryptography): skipping"))
    func aWholeUploadIsAcceptedAndStoresExactlyTheKeys() throws {
        let servers = try HealthAuthorityTestServer(now: Self.now, seconds: 120)
        var random = SystemRandomNumberGenerator()
        let code = try VerificationCode(try servers.issueCode(#"{"symptomDate": "2026-11-25", "testDate": "2026-11-27"}"#))
        let verifyAnswer = try servers.post(.verify, try VerifyCodeRequest(code: code).body(using: &random))
        let verified = try VerifiedCode(status: verifyAnswer.status, body: verifyAnswer.body)
        #expect(verified.testType == .confirmed)
        #expect(verified.symptomDate?.description == "2026-11-25" && verified.testDate?.description == "2026-11-27")

        let stored = Self.dailyKeys(days: 16)
        let keys = PublishableKeys.select(stored, at: ENIntervalNumber(unixSeconds: Self.now)!)
        #expect(keys.count == 14)
        let upload = try KeyUpload(keys: keys, using: &random)
        let certificateAnswer = try servers.post(.certificate, try CertificateRequest(token: verified.token, upload: upload)
            .body(using: &random))
        let certificate = try VerificationCertificate(status: certificateAnswer.status, body: certificateAnswer.body)
        let publishAnswer = try servers.post(.publish, try PublishRequest(
            upload: upload, certificate: certificate.jwt, healthAuthorityID: servers["health_authority_id"],
            symptomOnset: verified.symptomDate).body(using: &random))
        let outcome = try PublishOutcome(status: publishAnswer.status, body: publishAnswer.body)
        #expect(outcome.insertedExposures == 14 && !outcome.isPartialFailure && outcome.revisionToken != nil)

        let published = try servers.control("GET", "/_test/published")["keys"] as? [[String: Any]] ?? []
        #expect(Set(published.compactMap { $0["key"] as? String }) == Set(keys.map(\.base64Key)))
        #expect(published.allSatisfy { ($0["daysSinceOnset"] as? Int).map { abs($0) <= 14 } ?? false })
        let sizes = try servers.requests(since: 0).compactMap { $0["bodyBytes"] as? Int }
        #expect(sizes == [1_000, 2_000, 5_000])

        // The same keys again need the revision token; with it, nothing new is stored.
        let again = try KeyUpload(keys: keys, using: &random)
        let secondCode = try VerificationCode(try servers.issueCode())
        let token = try VerifiedCode(status: 200, body: try servers.post(.verify, try VerifyCodeRequest(code: secondCode)
            .body(using: &random)).body).token
        let second = try VerificationCertificate(status: 200, body: try servers.post(.certificate, try CertificateRequest(
            token: token, upload: again).body(using: &random)).body)
        var request = PublishRequest(upload: again, certificate: second.jwt, healthAuthorityID: servers["health_authority_id"])
        let refused = try servers.post(.publish, try request.body(using: &random))
        #expect(throws: HealthAuthorityError.refused(.missingRevisionToken, endpoint: .publish, status: 400)) {
            try PublishOutcome(status: refused.status, body: refused.body)
        }
        request.revisionToken = outcome.revisionToken
        let revised = try servers.post(.publish, try request.body(using: &random))
        #expect(try PublishOutcome(status: revised.status, body: revised.body).insertedExposures == 0)
    }

    /// The refusals staff would meet, read from the server's real answers.
    @Test(.enabled(if: available, "Python's cryptography package is missing (pip install cryptography): skipping"))
    func refusalsInWordsStaffCanActOn() throws {
        let servers = try HealthAuthorityTestServer(now: Self.now, seconds: 120)
        var random = SystemRandomNumberGenerator()
        func verify(_ code: String, apiKey: String? = nil) throws -> HealthAuthorityError? {
            let answer = try servers.post(.verify, try VerifyCodeRequest(code: VerificationCode(code)).body(using: &random),
                                          apiKey: apiKey)
            do {
                _ = try VerifiedCode(status: answer.status, body: answer.body)
                return nil
            } catch { return error }
        }
        let expired = try verify(try servers.issueCode(#"{"state": "expired"}"#))
        #expect(expired?.description == "this code has expired: ask the health authority for a new one")
        let code = try servers.issueCode()
        #expect(try verify(code, apiKey: "wrong") == .httpStatus(401, endpoint: .verify))
        #expect(try verify(code) == nil)
        #expect(try verify(code) == .refused(.codeInvalid, endpoint: .verify, status: 400))
        #expect(try verify(try servers.issueCode(#"{"testType": "negative"}"#))
                == .refused(.unsupportedTestType, endpoint: .verify, status: 412))

        // A token works once.
        let token = try VerifiedCode(status: 200, body: try servers.post(.verify, try VerifyCodeRequest(
            code: VerificationCode(try servers.issueCode())).body(using: &random)).body).token
        let upload = try KeyUpload(keys: PublishableKeys.select(Self.dailyKeys(days: 3), at: ENIntervalNumber(unixSeconds: Self.now)!),
                                   using: &random)
        let body = try CertificateRequest(token: token, upload: upload).body(using: &random)
        #expect(try servers.post(.certificate, body).status == 200)
        let reused = try servers.post(.certificate, body)
        #expect(throws: HealthAuthorityError.refused(.tokenExpired, endpoint: .certificate, status: 400)) {
            try VerificationCertificate(status: reused.status, body: reused.body)
        }

        // A certificate for other keys: the key server's HMAC check refuses it.
        let other = try KeyUpload(keys: PublishableKeys.select(Self.dailyKeys(days: 3), at: ENIntervalNumber(unixSeconds: Self.now)!),
                                  using: &random)
        let otherToken = try VerifiedCode(status: 200, body: try servers.post(.verify, try VerifyCodeRequest(
            code: VerificationCode(try servers.issueCode())).body(using: &random)).body).token
        let otherCertificate = try VerificationCertificate(status: 200, body: try servers.post(
            .certificate, try CertificateRequest(token: otherToken, upload: other).body(using: &random)).body)
        let mismatch = try servers.post(.publish, try PublishRequest(upload: upload, certificate: otherCertificate.jwt,
            healthAuthorityID: servers["health_authority_id"]).body(using: &random))
        #expect(throws: HealthAuthorityError.refused(.certificateInvalid, endpoint: .publish, status: 401)) {
            try PublishOutcome(status: mismatch.status, body: mismatch.body)
        }
        #expect((try servers.control("GET", "/_test/published")["keys"] as? [Any])?.isEmpty == true)
    }

    /// Chaff reaches every endpoint, is answered, and changes nothing.
    @Test(.enabled(if: available, "Python's cryptography package is missing (pip install cryptography): skipping"))
    func chaffIsAnsweredAndChangesNothing() throws {
        let servers = try HealthAuthorityTestServer(now: Self.now, seconds: 120)
        var random = SystemRandomNumberGenerator()
        let chaff = ["X-Chaff": "1"]
        #expect(try servers.post(.verify, try ChaffRequest.verifyBody(using: &random), headers: chaff).status == 200)
        #expect(try servers.post(.certificate, try ChaffRequest.certificateBody(using: &random), headers: chaff).status == 200)
        #expect(try servers.post(.publish, try ChaffRequest.publishBody(healthAuthorityID: servers["health_authority_id"],
                                                                         using: &random), headers: chaff).status == 200)
        let records = try servers.requests(since: 0)
        #expect(records.map { $0["chaff"] as? Bool } == [true, true, true])
        #expect(records.compactMap { $0["bodyBytes"] as? Int } == [1_000, 2_000, 5_000])
        #expect((try servers.control("GET", "/_test/published")["keys"] as? [Any])?.isEmpty == true)
    }
}

extension HealthAuthorityTestServer {
    /// A request as the badge makes it: JSON, and the API key for the verification server.
    func post(_ endpoint: PublishingEndpoint, _ body: String, headers: [String: String] = [:],
              apiKey: String? = nil) throws -> (status: Int, body: [UInt8]) {
        var all = ["Content-Type": "application/json"]
        if endpoint != .publish { all["X-API-Key"] = apiKey ?? self["api_key"] }
        all.merge(headers) { $1 }
        let base = endpoint == .publish ? self["keyserver_url"] : self["verification_url"]
        return try post(base + endpoint.rawValue, body, headers: all)
    }
}
