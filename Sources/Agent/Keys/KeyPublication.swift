import ENCore

/// The wearer's keys in the shape a key server's publish API takes (`POST /v1/publish`, SPEC §3): what
/// `keys export` prints once the wearer has consented. The verification certificate and the HMAC that
/// binds it come from the health authority's verification flow and are left for it to fill in.
package enum KeyPublication {
    package static func json(_ keys: [TemporaryExposureKey], transmissionRisk: Int = 0,
                            hmacKey: [UInt8]) -> String {
        var o = JSONObject()
        o.raw("temporaryExposureKeys", JSON.array(keys.map { key in
            var item = JSONObject()
            item.string("key", Base64.encode(key.keyData.bytes))
            item.integer("rollingStartNumber", key.rollingStart.value)
            item.integer("rollingPeriod", key.rollingPeriod)
            item.integer("transmissionRisk", transmissionRisk)
            return item.text
        }))
        o.string("healthAuthorityID", "")
        o.string("verificationPayload", "")
        o.string("hmacKey", Base64.encode(hmacKey))
        o.integer("symptomOnsetInterval", 0)
        o.bool("traveler", false)
        o.string("revisionToken", "")
        o.string("padding", "")
        return o.text
    }
}
