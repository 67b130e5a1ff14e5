/// One RPI heard during one scan: the aggregate of its reports. What the store keeps and the matcher reads.
public struct Sighting: Hashable, Sendable {
    public var rpi: Bytes16
    public var aem: AssociatedEncryptedMetadata
    /// Unix seconds of the first report in the scan.
    public var firstSeen: Int64
    /// Strongest and mean RSSI of the scan's reports, dBm. Reports without RSSI do not count here.
    public var rssiMax: Int8
    public var rssiMean: Int8
    /// Reports aggregated (saturating at 255).
    public var count: UInt8
    /// Seconds since the previous scan started (v2 risk scoring's secondsSinceLastScan); 0 when unknown.
    public var secondsSincePreviousScan: UInt16

    public init(rpi: Bytes16, aem: AssociatedEncryptedMetadata, firstSeen: Int64, rssiMax: Int8, rssiMean: Int8,
                count: UInt8, secondsSincePreviousScan: UInt16) {
        self.rpi = rpi
        self.aem = aem
        self.firstSeen = firstSeen
        self.rssiMax = rssiMax
        self.rssiMean = rssiMean
        self.count = count
        self.secondsSincePreviousScan = secondsSincePreviousScan
    }

    /// The ENIN of the first report.
    public var interval: ENIntervalNumber? { ENIntervalNumber(unixSeconds: firstSeen) }
}
