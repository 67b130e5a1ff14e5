/// `POST /api/certificate`: exchanges the token and the upload's `ekeyhmac` for a verification certificate
/// (PUBLISH.md §2). The token is used up by a successful answer.
public struct CertificateRequest: Sendable {
    /// The token `/api/verify` answered.
    public var token: String
    public var upload: KeyUpload
    public var padding: RequestPadding

    public init(token: String, upload: KeyUpload, padding: RequestPadding = .certificate) {
        self.token = token
        self.upload = upload
        self.padding = padding
    }

    /// The JSON body, padded.
    public func body<G: RandomNumberGenerator>(using generator: inout G) throws(PublishingRequestError) -> String {
        let unpadded = "{\"token\":" + (try PlainJSONString.quoted(token, member: "token"))
            + ",\"ekeyhmac\":" + (try PlainJSONString.quoted(upload.ekeyhmac, member: "ekeyhmac"))
            + ",\"padding\":\"\"}"
        return try padding.pad(unpadded, using: &generator)
    }
}
