/// `POST /v1/publish`: the keys, the certificate issued for exactly them, and the HMAC secret that lets the
/// key server check it (PUBLISH.md §3).
public struct PublishRequest: Sendable {
    public var upload: KeyUpload
    /// The certificate `/api/certificate` answered (valid 15 minutes).
    public var certificate: String
    /// `share.health_authority_id`.
    public var healthAuthorityID: String
    /// The UTC day symptoms began, if staff gave it; otherwise the key server uses the certificate's.
    public var symptomOnset: UTCDay?
    public var traveler: Bool
    /// From an earlier publish: only needed when keys it stored are sent again.
    public var revisionToken: String?
    public var padding: RequestPadding

    public init(upload: KeyUpload, certificate: String, healthAuthorityID: String, symptomOnset: UTCDay? = nil,
                traveler: Bool = false, revisionToken: String? = nil, padding: RequestPadding = .publish) {
        self.upload = upload
        self.certificate = certificate
        self.healthAuthorityID = healthAuthorityID
        self.symptomOnset = symptomOnset
        self.traveler = traveler
        self.revisionToken = revisionToken
        self.padding = padding
    }

    /// The JSON body, padded.
    public func body<G: RandomNumberGenerator>(using generator: inout G) throws(PublishingRequestError) -> String {
        let keys = upload.keys.map { key in
            "{\"key\":\"" + key.base64Key + "\",\"rollingStartNumber\":\(key.rollingStartNumber.value)"
                + ",\"rollingPeriod\":\(key.rollingPeriod),\"transmissionRisk\":\(key.transmissionRisk)}"
        }
        var body = "{\"temporaryExposureKeys\":[" + keys.joined(separator: ",") + "]"
        body += ",\"healthAuthorityID\":" + (try PlainJSONString.quoted(healthAuthorityID, member: "healthAuthorityID"))
        body += ",\"verificationPayload\":" + (try PlainJSONString.quoted(certificate, member: "verificationPayload"))
        body += ",\"hmacKey\":\"" + Base64.encode(upload.secret) + "\""
        if let symptomOnset {
            guard let interval = ENIntervalNumber(unixSeconds: symptomOnset.unixSeconds) else {
                throw .unsupportedText(member: "symptomOnsetInterval", reason: "is before 1970")
            }
            body += ",\"symptomOnsetInterval\":\(interval.value)"
        }
        body += ",\"traveler\":" + (traveler ? "true" : "false")
        if let revisionToken {
            body += ",\"revisionToken\":" + (try PlainJSONString.quoted(revisionToken, member: "revisionToken"))
        }
        return try padding.pad(body + ",\"padding\":\"\"}", using: &generator)
    }
}
