/// One RPI heard during one scan: the aggregate of its reports. What the store keeps and the matcher reads.
public struct Sighting: Hashable, Sendable {
    /// What a sighting without RSSI counts as once matched: the largest attenuation a `MatchedSighting` can
    /// carry, i.e. farther than any measured one (see `SignalStrength` for why).
    public static let unknownAttenuation = 255

    public var rpi: Bytes16
    public var aem: AssociatedEncryptedMetadata
    /// Unix seconds of the first report in the scan.
    public var firstSeen: Int64
    /// Strongest and mean RSSI of the scan's reports; nil when none of them carried an RSSI.
    public var signal: SignalStrength?
    /// Advertising reports aggregated, saturating at 65,535: it only weighs a sighting, and "at least
    /// 65,535" scores like the exact figure.
    public var reports: UInt16
    /// Seconds since the previous scan started (v2 risk scoring's secondsSinceLastScan); 0 when unknown
    /// (the first scan after a start), saturating at 65,535.
    public var secondsSincePreviousScan: UInt16

    /// `reports` and `secondsSincePreviousScan` are clamped into 0...65,535.
    public init(rpi: Bytes16, aem: AssociatedEncryptedMetadata, firstSeen: Int64, signal: SignalStrength?,
                reports: Int, secondsSincePreviousScan: Int) {
        self.rpi = rpi
        self.aem = aem
        self.firstSeen = firstSeen
        self.signal = signal
        self.reports = UInt16(clamping: reports)
        self.secondsSincePreviousScan = UInt16(clamping: secondsSincePreviousScan)
    }

    /// A sighting whose reports carried an RSSI.
    public init(rpi: Bytes16, aem: AssociatedEncryptedMetadata, firstSeen: Int64, rssiMax: Int8, rssiMean: Int8,
                reports: Int, secondsSincePreviousScan: Int) {
        self.init(rpi: rpi, aem: aem, firstSeen: firstSeen, signal: SignalStrength(max: rssiMax, mean: rssiMean),
                  reports: reports, secondsSincePreviousScan: secondsSincePreviousScan)
    }

    /// The ENIN of the first report.
    public var interval: ENIntervalNumber? { ENIntervalNumber(unixSeconds: firstSeen) }

    /// TX power − (mean RSSI + the receiver's `rssiCorrection`), dB, floored at 0: the typical attenuation of
    /// this sighting for a sender that declared `txPower`; `unknownAttenuation` without RSSI.
    public func attenuation(txPower: Int8, rssiCorrection: Int = 0) -> Int {
        guard let signal else { return Self.unknownAttenuation }
        return max(0, Int(txPower) - (Int(signal.mean) + rssiCorrection))
    }

    /// TX power − (strongest RSSI + `rssiCorrection`), dB, floored at 0 (at most `attenuation`);
    /// `unknownAttenuation` without RSSI.
    public func minimumAttenuation(txPower: Int8, rssiCorrection: Int = 0) -> Int {
        guard let signal else { return Self.unknownAttenuation }
        return max(0, Int(txPower) - (Int(signal.max) + rssiCorrection))
    }
}
