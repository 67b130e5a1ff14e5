/// One stored sighting of an RPI that matched a diagnosis key: what risk scoring needs of it and nothing more.
///
/// `ExposureDetection` makes these from the matcher's hits: with the TX power from the decrypted AEM it
/// computes the attenuations (`Sighting.attenuation(txPower:)`, 255 for a sighting without RSSI); sightings
/// with an implausible TX power never became hits.
public struct MatchedSighting: Hashable, Sendable {
    /// Unix seconds of the sighting (the first report in its scan).
    public var time: Int64
    /// TX power − mean RSSI of the scan's reports, dB, clamped at 0: the typical attenuation of this sighting.
    public var attenuation: UInt8
    /// TX power − strongest RSSI of the scan's reports, dB, clamped at 0 (≤ `attenuation`). The store keeps only
    /// per-scan aggregates, so this is the closest thing to the minimum over reports that v2 asks for.
    public var minimumAttenuation: UInt8
    /// Advertising reports the sighting aggregates (at least 1): Google's typical attenuation is the mean over
    /// reports, so a scan instance of several sightings weighs each by its reports.
    public var reports: UInt16
    /// Seconds since the previous scan started, as the scanner recorded it; 0 when unknown.
    public var secondsSincePreviousScan: UInt16
    /// How well the sender knew the TX power the attenuations rest on, from its decrypted metadata (v1.1; a
    /// v1.0 sender is `.lowest`). The store keeps the AEM, so this is read again at every match.
    public var calibrationConfidence: CalibrationConfidence

    /// `minimumAttenuation` defaults to `attenuation` for callers that have only one figure.
    public init(time: Int64, attenuation: UInt8, minimumAttenuation: UInt8? = nil, secondsSincePreviousScan: UInt16,
                calibrationConfidence: CalibrationConfidence = .lowest, reports: UInt16 = 1) {
        self.time = time
        self.attenuation = attenuation
        self.minimumAttenuation = min(minimumAttenuation ?? attenuation, attenuation)
        self.secondsSincePreviousScan = secondsSincePreviousScan
        self.calibrationConfidence = calibrationConfidence
        self.reports = max(1, reports)
    }
}
