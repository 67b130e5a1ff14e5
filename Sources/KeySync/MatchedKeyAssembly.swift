import Agent
import ENCore

extension MatchedKey {
    /// The matcher's hits for `key` in the form risk scoring reads: per sighting its time, the attenuation the
    /// matcher computed from the decrypted TX power and the mean RSSI, the minimum attenuation from the
    /// strongest RSSI, and the scan gap. Sightings without RSSI say nothing about distance and are left out;
    /// nil when none remain.
    init?(key: DiagnosisKey, hits: [KeyMatcher.Hit], sightings: [Sighting]) {
        let matched = hits.compactMap { hit -> MatchedSighting? in
            let sighting = sightings[hit.sightingIndex]
            guard sighting.rssiMean != Sighting.noRSSI else { return nil }
            let strongest = max(0, Int(hit.metadata.txPower) - Int(sighting.rssiMax))
            return MatchedSighting(time: sighting.firstSeen, attenuation: UInt8(clamping: hit.attenuation),
                                   minimumAttenuation: UInt8(clamping: strongest),
                                   secondsSincePreviousScan: sighting.secondsSincePreviousScan)
        }
        guard !matched.isEmpty else { return nil }
        self.init(rollingStart: key.tek.rollingStart, transmissionRiskLevel: key.transmissionRiskLevel,
                  reportType: key.reportType, daysSinceOnsetOfSymptoms: key.daysSinceOnsetOfSymptoms, sightings: matched)
    }
}

extension Sighting {
    /// The RSSI value the scanner stores when a report had none (HCI's "not available").
    static let noRSSI: Int8 = 127
}
