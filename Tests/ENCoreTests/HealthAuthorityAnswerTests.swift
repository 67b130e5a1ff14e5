import Testing
@testable import ENCore

/// Reading the answers of /api/verify, /api/certificate and /v1/publish: successes, every published error
/// code in the words staff see, and answers that are not the API's.
@Suite struct HealthAuthorityAnswerTests {
    static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    static let jwt = "eyJhbGciOiJFUzI1NiIsImtpZCI6InYxIn0.eyJyZXBvcnRUeXBlIjoiY29uZmlybWVkIn0.c2lnbmF0dXJlX2J5dGVz"

    static func verifyError(_ status: Int, _ body: String) -> HealthAuthorityError? {
        do {
            _ = try VerifiedCode(status: status, body: bytes(body))
            return nil
        } catch { return error }
    }

    static func publishError(_ status: Int, _ body: String) -> HealthAuthorityError? {
        do {
            _ = try PublishOutcome(status: status, body: bytes(body))
            return nil
        } catch { return error }
    }

    // MARK: - Successes

    @Test func verifiedCode() throws {
        let code = try VerifiedCode(status: 200, body: Self.bytes("""
            {"testtype":"confirmed","symptomDate":"2026-11-20","testDate":"2026-11-22","token":"\(Self.jwt)",
             "padding":"QUJD","somethingNewer":[1,2]}
            """))
        #expect(code.testType == .confirmed)
        #expect(code.symptomDate?.description == "2026-11-20")
        #expect(code.testDate?.description == "2026-11-22")
        #expect(code.token == Self.jwt)
        #expect(!"\(code)".contains(Self.jwt.prefix(20)))
        let bare = try VerifiedCode(status: 200, body: Self.bytes(#"{"testtype":"likely","token":"abc"}"#))
        #expect(bare.testType == .likely && bare.symptomDate == nil && bare.testDate == nil)
        let empty = try VerifiedCode(status: 200, body: Self.bytes(#"{"testtype":"likely","symptomDate":"","token":"abc"}"#))
        #expect(empty.symptomDate == nil)
    }

    @Test func certificate() throws {
        let certificate = try VerificationCertificate(status: 200, body: Self.bytes(#"{"certificate":"\#(Self.jwt)","padding":"x"}"#))
        #expect(certificate.jwt == Self.jwt)
        #expect(!"\(certificate)".contains("eyJ"))
    }

    @Test func published() throws {
        let outcome = try PublishOutcome(status: 200, body: Self.bytes(
            #"{"revisionToken":"cmV2aXNpb24rdG9rZW4=","insertedExposures":14,"padding":"x"}"#))
        #expect(outcome == PublishOutcome(revisionToken: "cmV2aXNpb24rdG9rZW4=", insertedExposures: 14, warnings: [],
                                          isPartialFailure: false))
        #expect(!"\(outcome)".contains("cmV2"))
        // The key server leaves out a zero count; an absent or null token is no token.
        #expect(try PublishOutcome(status: 200, body: Self.bytes(#"{"revisionToken":"dA=="}"#)).insertedExposures == 0)
        #expect(try PublishOutcome(status: 200, body: Self.bytes(#"{"revisionToken":null}"#)).revisionToken == nil)
        #expect(try PublishOutcome(status: 200, body: Self.bytes(#"{"insertedExposures":2}"#)).revisionToken == nil)
    }

    @Test func partialFailureIsASuccessWithWarnings() throws {
        let outcome = try PublishOutcome(status: 200, body: Self.bytes("""
            {"revisionToken":"dA==","insertedExposures":13,"code":"partial_failure","error":"some keys were not imported",
             "warnings":["key 3 was not imported: rollingStartNumber is in the future"]}
            """))
        #expect(outcome.isPartialFailure)
        #expect(outcome.insertedExposures == 13)
        #expect(outcome.warnings == ["key 3 was not imported: rollingStartNumber is in the future"])
    }

    // MARK: - Every published code, in words staff can act on

    @Test func theMessagesStaffSee() {
        func message(_ code: String) -> String? { Self.verifyError(400, #"{"error":"x","errorCode":"\#(code)"}"#)?.description }
        #expect(message("code_expired") == "this code has expired: ask the health authority for a new one")
        #expect(message("code_invalid") == "the health authority does not know this code, or it was already used: "
                + "check the code, or ask the health authority for a new one")
        #expect(message("token_expired")
                == "this code's verification has expired or was already used: ask the health authority for a new code")
        #expect(message("maintenance_mode") == "the health authority's server is in maintenance: the badge will try again later")
        #expect(Self.publishError(401, #"{"code":"unknown_health_authority_id","error":"x"}"#)?.description
                == "the key server does not know this health authority: check share.health_authority_id")
        #expect(Self.verifyError(401, #"{"error":"unauthorized"}"#)?.description
                == "the health authority refused the badge's API key: check share.api_key")
    }

    /// Each code of PUBLISH.md maps to a typed error with the disposition below, and its message says what
    /// to do next.
    @Test(arguments: [
        ("unparsable_request", 400, HealthAuthorityError.Disposition.badgeFault),
        ("code_invalid", 400, .newCodeNeeded),
        ("code_expired", 400, .newCodeNeeded),
        ("invalid_test_type", 400, .badgeFault),
        ("unsupported_test_type", 412, .newCodeNeeded),
        ("maintenance_mode", 429, .retryLater),
        ("internal_server_error", 500, .retryLater),
        ("token_invalid", 400, .newCodeNeeded),
        ("token_expired", 400, .newCodeNeeded),
        ("hmac_invalid", 400, .badgeFault),
        ("unknown_health_authority_id", 401, .checkConfiguration),
        ("health_authority_verification_certificate_invalid", 401, .newCodeNeeded),
        ("bad_request", 400, .badgeFault),
        ("missing_revision_token", 400, .badgeFault),
        ("invalid_revision_token", 400, .badgeFault),
        ("key_already_revised", 400, .badgeFault),
        ("invalid_report_type_transition", 400, .badgeFault),
        ("unable_to_load_health_authority", 500, .retryLater),
        ("health_authority_missing_region_config", 500, .retryLater),
        ("internal_error", 500, .retryLater),
    ])
    func everyPublishedCode(code: String, status: Int, disposition: HealthAuthorityError.Disposition) throws {
        let known = try #require(HealthAuthorityErrorCode(rawValue: code))
        let isKeyServer = ["unknown_health_authority_id", "health_authority_verification_certificate_invalid",
                           "bad_request", "missing_revision_token", "invalid_revision_token", "key_already_revised",
                           "invalid_report_type_transition", "unable_to_load_health_authority",
                           "health_authority_missing_region_config", "internal_error"].contains(code)
        let error = isKeyServer
            ? Self.publishError(status, #"{"code":"\#(code)","error":"server text","padding":"x"}"#)
            : Self.verifyError(status, #"{"errorCode":"\#(code)","error":"server text"}"#)
        #expect(error == .refused(known, endpoint: isKeyServer ? .publish : .verify, status: status))
        #expect(error?.disposition == disposition)
        let words = error?.description ?? ""
        #expect(!words.contains("server text"), "the server's own text is not shown to staff")
        let action: [HealthAuthorityError.Disposition: String] = [
            .retryLater: "the badge will try again", .newCodeNeeded: "ask the health authority", .checkConfiguration: "check share.",
            .badgeFault: "report this",
        ]
        #expect(words.contains(action[disposition]!), "\(code): \(words)")
    }

    @Test func everyCodeIsCovered() {
        #expect(HealthAuthorityErrorCode.allCases.count == 20)
    }

    /// An error code on a 200 answer is still an error.
    @Test func anErrorCodeWinsOverStatus200() {
        #expect(Self.publishError(200, #"{"code":"bad_request","error":"x"}"#)
                == .refused(.badRequest, endpoint: .publish, status: 200))
        #expect(Self.verifyError(200, #"{"errorCode":"code_expired","error":"x"}"#)
                == .refused(.codeExpired, endpoint: .verify, status: 200))
    }

    // MARK: - Answers that are not the API's

    @Test func statusesWithoutTheAPIsShape() {
        #expect(Self.verifyError(503, "upstream connect error\n") == .httpStatus(503, endpoint: .verify))
        #expect(Self.verifyError(503, "")?.disposition == .retryLater)
        #expect(Self.verifyError(503, "")?.description
                == "the health authority's verification server is not answering properly (HTTP 503): the badge will try again")
        #expect(Self.verifyError(429, "")?.disposition == .retryLater)
        #expect(Self.verifyError(404, "404 page not found")?.disposition == .checkConfiguration)
        #expect(Self.verifyError(404, "")?.description == "there is no health authority API at share.verification_url (HTTP 404): check it")
        #expect(Self.publishError(404, "")?.description == "there is no health authority API at share.publish_url (HTTP 404): check it")
        #expect(Self.publishError(415, #"{"error":"x"}"#)?.disposition == .badgeFault)
        #expect(Self.publishError(401, "")?.disposition == .badgeFault)
        #expect(Self.verifyError(401, "")?.disposition == .checkConfiguration)
    }

    @Test func unknownCodesAreNamedOnlyWhenTheyLookLikeCodes() {
        let unknown = Self.verifyError(400, #"{"errorCode":"brand_new_code"}"#)
        #expect(unknown == .unknownErrorCode("brand_new_code", endpoint: .verify, status: 400))
        #expect(unknown?.description == "the health authority's verification server refused the request with an error "
                + "this badge does not know (brand_new_code, HTTP 400): report this to the badge's maintainer")
        #expect(Self.publishError(502, #"{"code":"gateway_sad"}"#)?.disposition == .retryLater)
        #expect(Self.verifyError(400, #"{"errorCode":"<script>alert(1)</script>"}"#) == .httpStatus(400, endpoint: .verify))
    }

    @Test(arguments: [
        ("<html>captive portal</html>", "HTTP 200 without a JSON object"),
        ("[]", "HTTP 200 without a JSON object"),
        (#"{"token":"abc"}"#, "testtype is missing"),
        (#"{"testtype":"positive","token":"abc"}"#, "testtype is not one of confirmed, likely, negative, user-report"),
        (#"{"testtype":7,"token":"abc"}"#, "testtype is a number, not a string"),
        (#"{"testtype":"confirmed"}"#, "token is missing"),
        (#"{"testtype":"confirmed","token":""}"#, "token is missing"),
        (#"{"testtype":"confirmed","token":"a\"b"}"#, "token is not a printable ASCII text of at most 16384 bytes"),
        (#"{"testtype":"confirmed","token":"tökén"}"#, "token is not a printable ASCII text of at most 16384 bytes"),
        (#"{"testtype":"confirmed","token":"abc","symptomDate":"2021-02-30"}"#, "symptomDate is not a YYYY-MM-DD day"),
        (#"{"testtype":"confirmed","token":"abc","testDate":"22.11.2026"}"#, "testDate is not a YYYY-MM-DD day"),
        (#"{"testtype":"confirmed","token":"abc","token":"def"}"#, "HTTP 200 without a JSON object"),
    ])
    func malformedVerifyAnswers(body: String, reason: String) {
        let error = Self.verifyError(200, body)
        #expect(error == .malformedAnswer(reason, endpoint: .verify))
        #expect(error?.description == "the answer from share.verification_url is not the health authority's API "
                + "(\(reason)): check share.verification_url")
    }

    @Test func malformedCertificateAndPublishAnswers() {
        func certificateError(_ body: String) -> HealthAuthorityError? {
            do {
                _ = try VerificationCertificate(status: 200, body: Self.bytes(body))
                return nil
            } catch { return error }
        }
        #expect(certificateError(#"{"padding":"x"}"#) == .malformedAnswer("certificate is missing", endpoint: .certificate))
        #expect(certificateError(#"{"certificate":"not-a-jwt"}"#) == .malformedAnswer("certificate is not a JWT", endpoint: .certificate))
        #expect(certificateError(#"{"certificate":"a..c"}"#) == .malformedAnswer("certificate is not a JWT", endpoint: .certificate))
        #expect(certificateError(#"{"certificate":"a.b+.c"}"#) == .malformedAnswer("certificate is not a JWT", endpoint: .certificate))
        #expect(Self.publishError(200, #"{"insertedExposures":-1}"#)
                == .malformedAnswer("insertedExposures is not a whole number of keys", endpoint: .publish))
        #expect(Self.publishError(200, #"{"insertedExposures":"3"}"#) != nil)
        #expect(Self.publishError(200, #"{"warnings":[1]}"#)
                == .malformedAnswer("warnings holds a number, not text", endpoint: .publish))
        #expect(Self.publishError(200, #"{"warnings":"x"}"#)
                == .malformedAnswer("warnings is a string, not a list", endpoint: .publish))
        #expect(Self.publishError(200, #"{"revisionToken":"a\nb"}"#) != nil)
    }

    @Test func unreachable() {
        let error = HealthAuthorityError.unreachable("connection refused", endpoint: .publish)
        #expect(error.disposition == .retryLater)
        #expect(error.description == "cannot reach the key server (connection refused): the badge will try again")
    }
}
