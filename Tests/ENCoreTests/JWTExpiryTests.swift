import Testing
@testable import ENCore

/// The lifetime a token or certificate claims, read from its JWT claims (base64url).
@Suite struct JWTExpiryTests {
    @Test func base64URLDecodesWithAndWithoutPadding() {
        #expect(Base64URL.decode("") == [])
        #expect(Base64URL.decode("Zg") == Array("f".utf8))
        #expect(Base64URL.decode("Zg==") == Array("f".utf8))
        #expect(Base64URL.decode("Zm9vYg") == Array("foob".utf8))
        #expect(Base64URL.decode("-_-_") == [0xFB, 0xFF, 0xBF])
        #expect(Base64URL.decode("+/+/") == [0xFB, 0xFF, 0xBF])
        #expect(Base64URL.decode("Z") == nil, "one character is no whole byte")
        #expect(Base64URL.decode("Zg=a") == nil)
        #expect(Base64URL.decode("Z!==") == nil)
    }

    @Test func theExpClaimIsReadAndAnythingElseIsNil() {
        // {"alg":"ES256","kid":"v1"} . {"iss":"x","exp":1622635200,"iat":1622548800} . signature
        let jwt = "eyJhbGciOiJFUzI1NiIsImtpZCI6InYxIn0.eyJpc3MiOiJ4IiwiZXhwIjoxNjIyNjM1MjAwLCJpYXQiOjE2MjI1NDg4MDB9.c2ln"
        #expect(JWTExpiry.unixSeconds(of: jwt) == 1_622_635_200)
        #expect(JWTExpiry.unixSeconds(of: "opaque-token") == nil)
        // {"exp":"soon"}
        #expect(JWTExpiry.unixSeconds(of: "e30.eyJleHAiOiJzb29uIn0.c2ln") == nil)
        #expect(JWTExpiry.unixSeconds(of: "e30.!!!.c2ln") == nil)
    }
}
