import Testing
@testable import ENCore

/// The bodies of /api/verify, /api/certificate and /v1/publish: members, values, padding, size limits.
@Suite struct PublishingRequestTests {
    static let secret = [UInt8](repeating: 0x5A, count: 32)

    static func keys(_ count: Int, seed: UInt64 = 1) -> [PublishedKey] {
        var random = SplitMix64(seed: seed)
        return (0..<count).map { day in
            PublishedKey(keyData: Bytes16(low: random.next(), high: random.next()),
                         rollingStartNumber: ENIntervalNumber(2_990_016 + UInt32(day) * 144))
        }
    }

    static func object(_ body: String) throws -> [String: JSONValue] {
        guard case .object(let members) = try JSONValue.parse(body) else { throw Unexpected("not an object") }
        return members
    }

    struct Unexpected: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    static func padding(of members: [String: JSONValue]) -> String {
        guard case .string(let text)? = members["padding"] else { return "<none>" }
        return text
    }

    static func isBase64Alphabet(_ text: String) -> Bool {
        text.utf8.allSatisfy { RequestPadding.alphabet.contains($0) }
    }

    // MARK: - Verification codes

    @Test func codesAreNormalisedAsTheServerMatchesThem() throws {
        #expect(try VerificationCode(" 1234 5678 ").text == "12345678")
        #expect(try VerificationCode("AbCd EfGh 0123 4567").text == "abcdefgh01234567")
        #expect(throws: VerificationCodeError.notLettersAndDigits) { try VerificationCode("1234-5678") }
        #expect(throws: VerificationCodeError.notLettersAndDigits) { try VerificationCode("12345678\"") }
        #expect(throws: VerificationCodeError.notLettersAndDigits) { try VerificationCode("1234567é") }
        #expect(throws: VerificationCodeError.empty) { try VerificationCode("   ") }
        #expect(throws: VerificationCodeError.length(5)) { try VerificationCode("12345") }
        #expect(throws: VerificationCodeError.length(21)) { try VerificationCode(String(repeating: "a", count: 21)) }
    }

    @Test func codeMessagesNeverRepeatTheCode() throws {
        let code = try VerificationCode("98765432")
        #expect(!"\(code)".contains("9876"))
        #expect(VerificationCodeError.length(5).description
                == "a verification code has 6 to 20 letters and digits, this one has 5: check it")
        #expect(VerificationCodeError.notLettersAndDigits.description
                == "a verification code has only letters and digits: check what was typed")
    }

    // MARK: - /api/verify

    @Test func verifyBody() throws {
        var random = SplitMix64(seed: 3)
        let body = try VerifyCodeRequest(code: VerificationCode("1234 5678")).body(using: &random)
        let members = try Self.object(body)
        #expect(Set(members.keys) == ["code", "accept", "padding"])
        #expect(members["code"] == .string("12345678"))
        #expect(members["accept"] == .array([.string("confirmed"), .string("likely")]))
        #expect(body.utf8.count == RequestPadding.verify.targetBytes)
        #expect(Self.isBase64Alphabet(Self.padding(of: members)))
        #expect(body.hasSuffix("\"}"))
    }

    /// A long code and a short one give bodies of one size: the length says nothing.
    @Test func verifyBodiesHaveOneSize() throws {
        var random = SplitMix64(seed: 4)
        let short = try VerifyCodeRequest(code: VerificationCode("12345678")).body(using: &random)
        let long = try VerifyCodeRequest(code: VerificationCode("abcdefgh01234567"), accept: [.confirmed, .likely, .negative, .userReport])
            .body(using: &random)
        #expect(short.utf8.count == long.utf8.count)
        #expect(short != long)
    }

    @Test func verifyRefusesAcceptListsTheServerRefuses() throws {
        var random = SplitMix64(seed: 5)
        let code = try VerificationCode("12345678")
        for accept: [TestType] in [[], [.likely], [.likely, .confirmed], [.confirmed, .negative], [.userReport, .confirmed]] {
            #expect(throws: PublishingRequestError.self) { try VerifyCodeRequest(code: code, accept: accept).body(using: &random) }
        }
        for accept: [TestType] in [[.confirmed], [.confirmed, .likely, .negative], [.confirmed, .userReport]] {
            _ = try VerifyCodeRequest(code: code, accept: accept).body(using: &random)
        }
    }

    // MARK: - /api/certificate

    @Test func certificateBodyCarriesTheUploadsMAC() throws {
        var random = SplitMix64(seed: 6)
        let upload = try KeyUpload(keys: Self.keys(3), secret: Self.secret)
        let token = "eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJjb25maXJtZWQuLiJ9.c2lnbmF0dXJl"
        let body = try CertificateRequest(token: token, upload: upload).body(using: &random)
        let members = try Self.object(body)
        #expect(Set(members.keys) == ["token", "ekeyhmac", "padding"])
        #expect(members["token"] == .string(token))
        #expect(members["ekeyhmac"] == .string(try ExposureKeyHMAC.base64(Self.keys(3), secret: Self.secret)))
        #expect(body.utf8.count == RequestPadding.certificate.targetBytes)
    }

    @Test func textsThatWouldNeedEscapingAreRefused() throws {
        var random = SplitMix64(seed: 7)
        let upload = try KeyUpload(keys: Self.keys(1), secret: Self.secret)
        for token in ["a\"b", "a\\b", "a\nb", "é", ""] {
            #expect(throws: PublishingRequestError.self) { try CertificateRequest(token: token, upload: upload).body(using: &random) }
        }
        #expect(throws: PublishingRequestError.self) {
            try PublishRequest(upload: upload, certificate: "a.b.c", healthAuthorityID: "x\"y").body(using: &random)
        }
    }

    // MARK: - /v1/publish

    @Test func publishBodyHasTheAPIsMembersAndTheKeys() throws {
        var random = SplitMix64(seed: 8)
        let keys = Self.keys(14)
        let upload = try KeyUpload(keys: keys, secret: Self.secret)
        let onset = UTCDay(unixSeconds: 1_795_000_000)
        let body = try PublishRequest(upload: upload, certificate: "h.c.s", healthAuthorityID: "enbeacon-test",
                                      symptomOnset: onset, revisionToken: "cmV2aXNpb24=").body(using: &random)
        let members = try Self.object(body)
        #expect(Set(members.keys) == ["temporaryExposureKeys", "healthAuthorityID", "verificationPayload", "hmacKey",
                                      "symptomOnsetInterval", "traveler", "revisionToken", "padding"])
        #expect(members["healthAuthorityID"] == .string("enbeacon-test"))
        #expect(members["verificationPayload"] == .string("h.c.s"))
        #expect(members["hmacKey"] == .string(Base64.encode(Self.secret)))
        #expect(members["symptomOnsetInterval"] == .number(Double(ENIntervalNumber(unixSeconds: onset.unixSeconds)!.value)))
        #expect(members["traveler"] == .bool(false))
        #expect(members["revisionToken"] == .string("cmV2aXNpb24="))
        guard case .array(let sent)? = members["temporaryExposureKeys"] else { throw Unexpected("no keys") }
        #expect(sent == keys.map { key in
            .object(["key": .string(key.base64Key), "rollingStartNumber": .number(Double(key.rollingStartNumber.value)),
                     "rollingPeriod": .number(144), "transmissionRisk": .number(0)])
        })
        #expect(body.utf8.count == RequestPadding.publish.targetBytes)
    }

    @Test func publishLeavesOutWhatIsNotSet() throws {
        var random = SplitMix64(seed: 9)
        let upload = try KeyUpload(keys: Self.keys(1), secret: Self.secret)
        let members = try Self.object(try PublishRequest(upload: upload, certificate: "h.c.s", healthAuthorityID: "ha")
            .body(using: &random))
        #expect(members["revisionToken"] == nil)
        #expect(members["symptomOnsetInterval"] == nil)
    }

    /// What the key server does with a publish: recompute the HMAC over every key received with the secret
    /// received. It must equal the ekeyhmac the certificate was asked for.
    @Test func theKeyServersHMACOfThePublishedKeysIsTheCertificates() throws {
        var random = SplitMix64(seed: 10)
        let upload = try KeyUpload(keys: Self.keys(14, seed: 77).map { var k = $0; k.transmissionRisk = 2; return k },
                                   using: &random)
        let certificateBody = try Self.object(try CertificateRequest(token: "t.t.t", upload: upload).body(using: &random))
        let publish = try Self.object(try PublishRequest(upload: upload, certificate: "c.c.c", healthAuthorityID: "ha")
            .body(using: &random))
        guard case .array(let sent)? = publish["temporaryExposureKeys"], case .string(let hmacKey)? = publish["hmacKey"]
        else { throw Unexpected("publish body") }
        let received = sent.compactMap { item -> PublishedKey? in
            guard case .object(let m) = item, case .string(let key)? = m["key"],
                  case .number(let start)? = m["rollingStartNumber"], case .number(let period)? = m["rollingPeriod"],
                  case .number(let risk)? = m["transmissionRisk"],
                  let match = upload.keys.first(where: { $0.base64Key == key }) else { return nil }
            return PublishedKey(keyData: match.keyData, rollingStartNumber: ENIntervalNumber(UInt32(start)),
                                rollingPeriod: UInt32(period), transmissionRisk: Int(risk))
        }
        #expect(received.count == 14)
        #expect(hmacKey == Base64.encode(upload.secret))
        #expect(certificateBody["ekeyhmac"] == .string(try ExposureKeyHMAC.base64(received, secret: upload.secret)))
    }

    /// One key or thirty: the same size on the wire.
    @Test func publishSizeDoesNotRevealTheNumberOfKeys() throws {
        var random = SplitMix64(seed: 11)
        let certificate = String(repeating: "x", count: 800) + ".y.z"
        var sizes = Set<Int>()
        for count in [1, 2, 14, 29, 30] {
            let upload = try KeyUpload(keys: Self.keys(count), secret: Self.secret)
            sizes.insert(try PublishRequest(upload: upload, certificate: certificate, healthAuthorityID: "enbeacon-test",
                                            revisionToken: String(repeating: "r", count: 200)).body(using: &random).utf8.count)
        }
        #expect(sizes == [RequestPadding.publish.targetBytes])
    }

    @Test func paddingRule() {
        let rule = RequestPadding(targetBytes: 5_000, stepBytes: 1_000)
        #expect(rule.paddedSize(unpaddedBytes: 10) == 5_000)
        #expect(rule.paddedSize(unpaddedBytes: 5_000) == 5_000)
        #expect(rule.paddedSize(unpaddedBytes: 5_001) == 6_000)
        #expect(rule.paddedSize(unpaddedBytes: 6_000) == 6_000)
        #expect(rule.paddedSize(unpaddedBytes: 6_001) == 7_000)
    }

    @Test func anOversizedBodyIsPaddedToTheNextStep() throws {
        var random = SplitMix64(seed: 12)
        let upload = try KeyUpload(keys: Self.keys(30), secret: Self.secret)
        let body = try PublishRequest(upload: upload, certificate: String(repeating: "c", count: 6_000),
                                      healthAuthorityID: "ha").body(using: &random)
        #expect(body.utf8.count == 10_000)
        #expect(Self.isBase64Alphabet(Self.padding(of: try Self.object(body))))
    }

    @Test func bodiesOverTheServersLimitAreRefused() throws {
        var random = SplitMix64(seed: 13)
        let code = try VerificationCode("12345678")
        let tooBig = RequestPadding(targetBytes: PublishingLimits.maxBodyBytes + 1, stepBytes: 1)
        #expect(throws: PublishingRequestError.bodyTooLarge(bytes: 64_001, limit: 64_000)) {
            try VerifyCodeRequest(code: code, padding: tooBig).body(using: &random)
        }
        let atLimit = RequestPadding(targetBytes: PublishingLimits.maxBodyBytes, stepBytes: 1)
        #expect(try VerifyCodeRequest(code: code, padding: atLimit).body(using: &random).utf8.count == 64_000)
    }

    // MARK: - What an upload may hold

    @Test func uploadsFollowTheKeyServersRules() throws {
        let keys = Self.keys(31)
        #expect(throws: PublishingRequestError.noKeys) { try KeyUpload(keys: [], secret: Self.secret) }
        #expect(throws: PublishingRequestError.tooManyKeys(count: 31, limit: 30)) { try KeyUpload(keys: keys, secret: Self.secret) }
        _ = try KeyUpload(keys: Array(keys.prefix(30)), secret: Self.secret)
        #expect(throws: PublishingRequestError.secretTooShort(bytes: 15)) {
            try KeyUpload(keys: Array(keys.prefix(1)), secret: Array(Self.secret.prefix(15)))
        }
        var bad = Array(keys.prefix(3))
        bad[1].rollingPeriod = 0
        #expect(throws: PublishingRequestError.invalidKey(index: 1, reason: "rolling period 0 is outside 1…144")) {
            try KeyUpload(keys: bad, secret: Self.secret)
        }
        bad = Array(keys.prefix(3))
        bad[2].rollingPeriod = 145
        #expect(throws: PublishingRequestError.self) { try KeyUpload(keys: bad, secret: Self.secret) }
        bad = Array(keys.prefix(3))
        bad[0].transmissionRisk = 9
        #expect(throws: PublishingRequestError.invalidKey(index: 0, reason: "transmission risk 9 is outside 0…8")) {
            try KeyUpload(keys: bad, secret: Self.secret)
        }
        bad = Array(keys.prefix(3))
        bad[2].keyData = bad[0].keyData
        #expect(throws: PublishingRequestError.invalidKey(index: 2, reason: "the same key is listed twice")) {
            try KeyUpload(keys: bad, secret: Self.secret)
        }
    }

    @Test func overlappingKeysAreRefusedExceptUpToThreeSharingAStart() throws {
        let day = ENIntervalNumber(2_990_016)
        func key(_ start: UInt32, _ period: UInt32, _ seed: UInt64) -> PublishedKey {
            var random = SplitMix64(seed: seed)
            return PublishedKey(keyData: Bytes16(low: random.next(), high: random.next()),
                                rollingStartNumber: ENIntervalNumber(day.value + start), rollingPeriod: period)
        }
        #expect(throws: PublishingRequestError.overlappingKeys) {
            try KeyUpload(keys: [key(0, 144, 1), key(72, 144, 2)], secret: Self.secret)
        }
        _ = try KeyUpload(keys: [key(0, 40, 1), key(0, 90, 2), key(0, 144, 3), key(144, 144, 4)], secret: Self.secret)
        #expect(throws: PublishingRequestError.overlappingKeys) {
            try KeyUpload(keys: [key(0, 10, 1), key(0, 20, 2), key(0, 30, 3), key(0, 40, 4)], secret: Self.secret)
        }
        #expect(throws: PublishingRequestError.overlappingKeys) {
            try KeyUpload(keys: [key(0, 40, 1), key(0, 144, 2), key(100, 44, 3)], secret: Self.secret)
        }
        _ = try KeyUpload(keys: [key(144, 144, 1), key(0, 144, 2)], secret: Self.secret)
    }

    @Test func aFreshSecretPerUpload() throws {
        var random = SystemRandomNumberGenerator()
        let a = try KeyUpload(keys: Self.keys(2), using: &random)
        let b = try KeyUpload(keys: Self.keys(2), using: &random)
        #expect(a.secret.count == 32 && b.secret.count == 32)
        #expect(a.secret != b.secret && a.ekeyhmac != b.ekeyhmac)
        #expect(!"\(a)".contains(Base64.encode(a.secret)))
    }

    // MARK: - Chaff

    @Test func chaffLooksLikeTheRealRequests() throws {
        var random = SplitMix64(seed: 14)
        let verify = try ChaffRequest.verifyBody(using: &random)
        let certificate = try ChaffRequest.certificateBody(using: &random)
        let publish = try ChaffRequest.publishBody(healthAuthorityID: "enbeacon-test", using: &random)
        #expect(verify.utf8.count == RequestPadding.verify.targetBytes)
        #expect(certificate.utf8.count == RequestPadding.certificate.targetBytes)
        #expect(publish.utf8.count == RequestPadding.publish.targetBytes)
        #expect(Set(try Self.object(verify).keys) == ["code", "accept", "padding"])
        #expect(Set(try Self.object(certificate).keys) == ["token", "ekeyhmac", "padding"])
        #expect(Set(try Self.object(publish).keys)
                == ["temporaryExposureKeys", "healthAuthorityID", "verificationPayload", "hmacKey", "traveler", "padding"])
        #expect(try ChaffRequest.verifyBody(using: &random) != verify)
    }
}
