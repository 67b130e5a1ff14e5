/// A Temporary Exposure Key and the intervals it covers.
///
/// `keyData` is secret: it leaves the device only with the wearer's consent. `description`
/// is therefore redacted so that a TEK interpolated into a log line shows nothing of the key.
public struct TemporaryExposureKey: Hashable, Sendable {
    public var keyData: Bytes16
    /// The first interval of validity; for keys this device makes, a multiple of 144 (UTC midnight).
    public var rollingStart: ENIntervalNumber
    /// Number of intervals the key is valid for, 1…144.
    public var rollingPeriod: UInt32

    public init(keyData: Bytes16, rollingStart: ENIntervalNumber, rollingPeriod: UInt32 = ENIntervalNumber.intervalsPerDay) {
        self.keyData = keyData
        self.rollingStart = rollingStart
        self.rollingPeriod = rollingPeriod
    }

    /// A fresh key for the UTC day containing `interval`, from a cryptographically secure generator
    /// (`SystemRandomNumberGenerator` is the kernel's getrandom(2) on Linux; tests pass a seeded one).
    public static func generate<G: RandomNumberGenerator>(
        for interval: ENIntervalNumber, using generator: inout G
    ) -> TemporaryExposureKey {
        let data = Bytes16(low: generator.next(), high: generator.next())
        return TemporaryExposureKey(keyData: data, rollingStart: interval.dayStart)
    }

    public static func generate(for interval: ENIntervalNumber) -> TemporaryExposureKey {
        var system = SystemRandomNumberGenerator()
        return generate(for: interval, using: &system)
    }

    /// The first interval after the key's validity.
    public var rollingEnd: UInt64 { UInt64(rollingStart.value) + UInt64(rollingPeriod) }

    public func isValid(at interval: ENIntervalNumber) -> Bool {
        interval >= rollingStart && UInt64(interval.value) < rollingEnd
    }
}

extension TemporaryExposureKey: CustomStringConvertible {
    public var description: String {
        "TEK(redacted, rollingStart: \(rollingStart), rollingPeriod: \(rollingPeriod))"
    }
}
