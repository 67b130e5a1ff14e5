import ENCore

/// The wearer's keys in the shape a key server's publish API takes (`POST /v1/publish`, SPEC §3): what
/// `keys export` prints once the wearer has consented. The verification certificate and the HMAC that
/// binds it come from the health authority's verification flow and are left for it to fill in.
public enum KeyPublication {
    public static func json(_ keys: [TemporaryExposureKey], transmissionRisk: Int = 0,
                            hmacKey: [UInt8]) -> String {
        let items = keys.map { key in
            "{\"key\":\"\(Base64.encode(key.keyData.bytes))\",\"rollingStartNumber\":\(key.rollingStart.value),"
                + "\"rollingPeriod\":\(key.rollingPeriod),\"transmissionRisk\":\(transmissionRisk)}"
        }
        return "{\"temporaryExposureKeys\":[\(items.joined(separator: ","))],\"healthAuthorityID\":\"\","
            + "\"verificationPayload\":\"\",\"hmacKey\":\"\(Base64.encode(hmacKey))\",\"symptomOnsetInterval\":0,"
            + "\"traveler\":false,\"revisionToken\":\"\",\"padding\":\"\"}"
    }
}
