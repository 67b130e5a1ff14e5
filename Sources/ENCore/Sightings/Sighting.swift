/// One RPI heard during one scan: the aggregate of its reports. What the store keeps and the matcher reads.
public struct Sighting: Hashable, Sendable {
    public var rpi: Bytes16
    public var aem: AssociatedEncryptedMetadata
    /// Unix seconds of the first report in the scan.
    public var firstSeen: Int64
    /// Strongest and mean RSSI of the scan's reports, dBm. Reports without RSSI do not count here.
    public var rssiMax: Int8
    public var rssiMean: Int8
    /// Advertising reports aggregated, saturating at 65,535: it only weighs a sighting, and "at least
    /// 65,535" scores like the exact figure.
    public var reports: UInt16
    /// Seconds since the previous scan started (v2 risk scoring's secondsSinceLastScan); 0 when unknown
    /// (the first scan after a start), saturating at 65,535.
    public var secondsSincePreviousScan: UInt16

    /// `reports` and `secondsSincePreviousScan` are clamped into 0...65,535.
    public init(rpi: Bytes16, aem: AssociatedEncryptedMetadata, firstSeen: Int64, rssiMax: Int8, rssiMean: Int8,
                reports: Int, secondsSincePreviousScan: Int) {
        self.rpi = rpi
        self.aem = aem
        self.firstSeen = firstSeen
        self.rssiMax = rssiMax
        self.rssiMean = rssiMean
        self.reports = UInt16(clamping: reports)
        self.secondsSincePreviousScan = UInt16(clamping: secondsSincePreviousScan)
    }

    /// The ENIN of the first report.
    public var interval: ENIntervalNumber? { ENIntervalNumber(unixSeconds: firstSeen) }
}
