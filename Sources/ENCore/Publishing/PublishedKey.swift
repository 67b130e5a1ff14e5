/// One key as the key server's publish API takes it: the TEK, its validity and a transmission risk.
///
/// `keyData` is secret until the upload the wearer consented to; `description` shows none of it.
public struct PublishedKey: Equatable, Sendable, CustomStringConvertible {
    public static let transmissionRiskRange = 0...8
    public static let rollingPeriodRange: ClosedRange<UInt32> = 1...144

    public var keyData: Bytes16
    public var rollingStartNumber: ENIntervalNumber
    public var rollingPeriod: UInt32
    /// 0…8; 0 lets the key server fill it in from the report type (confirmed 2, likely 4, negative 6).
    public var transmissionRisk: Int

    public init(keyData: Bytes16, rollingStartNumber: ENIntervalNumber, rollingPeriod: UInt32 = 144,
                transmissionRisk: Int = 0) {
        self.keyData = keyData
        self.rollingStartNumber = rollingStartNumber
        self.rollingPeriod = rollingPeriod
        self.transmissionRisk = transmissionRisk
    }

    public init(_ key: TemporaryExposureKey, transmissionRisk: Int = 0) {
        self.init(keyData: key.keyData, rollingStartNumber: key.rollingStart, rollingPeriod: key.rollingPeriod,
                  transmissionRisk: transmissionRisk)
    }

    /// The key as the publish JSON carries it, and as the HMAC covers it: standard base64 with padding.
    public var base64Key: String { Base64.encode(keyData.bytes) }

    /// The first interval after the key's validity.
    public var rollingEnd: UInt64 { UInt64(rollingStartNumber.value) + UInt64(rollingPeriod) }

    public var description: String {
        "PublishedKey(redacted, rollingStart: \(rollingStartNumber), rollingPeriod: \(rollingPeriod), "
            + "transmissionRisk: \(transmissionRisk))"
    }
}
