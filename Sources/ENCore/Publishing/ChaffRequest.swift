/// Bodies for chaff requests (PUBLISH.md §6): sent with `X-Chaff: 1` at random times so that an observer of
/// the care home's network cannot tell a real upload from noise. Each has the members, the kind of values and
/// the padded size of the real request to the same endpoint, and means nothing: the code, token, keys and
/// certificate are random. The servers answer chaff with something meaningless, which is never parsed.
public enum ChaffRequest {
    public static func verifyBody<G: RandomNumberGenerator>(using generator: inout G) throws(PublishingRequestError) -> String {
        var digits = ""
        for _ in 0..<8 { digits += String(generator.next(upperBound: 10 as UInt64)) }
        return try VerifyCodeRequest(code: VerificationCode(normalised: digits)).body(using: &generator)
    }

    public static func certificateBody<G: RandomNumberGenerator>(using generator: inout G) throws(PublishingRequestError) -> String {
        try CertificateRequest(token: fakeJWT(claimsBytes: 300, using: &generator),
                               upload: try fakeUpload(using: &generator)).body(using: &generator)
    }

    public static func publishBody<G: RandomNumberGenerator>(healthAuthorityID: String,
                                                             using generator: inout G) throws(PublishingRequestError) -> String {
        try PublishRequest(upload: try fakeUpload(using: &generator),
                           certificate: fakeJWT(claimsBytes: 450, using: &generator),
                           healthAuthorityID: healthAuthorityID).body(using: &generator)
    }

    /// Fourteen random keys on consecutive days, like a real upload's.
    private static func fakeUpload<G: RandomNumberGenerator>(using generator: inout G) throws(PublishingRequestError) -> KeyUpload {
        let firstDay = (18_000 + UInt32(generator.next(upperBound: 10_000 as UInt64))) * ENIntervalNumber.intervalsPerDay
        let keys = (0..<14).map { day in
            PublishedKey(keyData: Bytes16(low: generator.next(), high: generator.next()),
                         rollingStartNumber: ENIntervalNumber(firstDay + UInt32(day) * 144))
        }
        return try KeyUpload(keys: keys, using: &generator)
    }

    /// Three base64url segments shaped like an ES256 JWT: a short header, `claimsBytes` of claims, a 64-byte
    /// signature.
    private static func fakeJWT<G: RandomNumberGenerator>(claimsBytes: Int, using generator: inout G) -> String {
        func segment(_ bytes: Int) -> String {
            String(RequestPadding.characters(bytes * 4 / 3, using: &generator).map { $0 == "+" ? "-" : $0 == "/" ? "_" : $0 })
        }
        return segment(54) + "." + segment(claimsBytes) + "." + segment(64)
    }
}
