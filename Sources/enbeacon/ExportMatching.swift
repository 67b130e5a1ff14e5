import ENCore

/// Streams the keys of export files through one `KeyMatcher` and keeps only what matched: memory is the
/// sightings' index plus the matched keys, whatever the number of keys in the files.
///
/// Keys are identified by key data and rolling start. A key seen again (the same key in a daily and a
/// 14-day file, or a revision in `revised_keys`) replaces the earlier entry, so a later report type wins;
/// a revised key with report type REVOKED removes a match made earlier.
final class ExportMatching {
    struct Match {
        var key: DiagnosisKey
        var hits: [KeyMatcher.Hit]
        /// The export file it came from.
        var file: String
    }

    private struct KeyIdentity: Hashable {
        var keyData: Bytes16
        var rollingStart: ENIntervalNumber
    }

    let matcher: KeyMatcher
    private var matches: [KeyIdentity: Match] = [:]
    private var order: [KeyIdentity] = []
    private(set) var revocations = 0

    init(matcher: KeyMatcher) { self.matcher = matcher }

    /// The matches still standing, in the order they were first found.
    var matched: [Match] { order.compactMap { matches[$0] } }

    func consider(_ key: DiagnosisKey, from file: String) {
        let identity = KeyIdentity(keyData: key.tek.keyData, rollingStart: key.tek.rollingStart)
        if key.reportType == .revoked, matches.removeValue(forKey: identity) != nil { revocations += 1 }
        let hits = matcher.match(key)
        guard !hits.isEmpty else { return }
        if matches.updateValue(Match(key: key, hits: hits, file: file), forKey: identity) == nil { order.append(identity) }
    }

    /// Every key of a verified file. Matches from a file that fails halfway are taken back.
    func match(_ file: VerifiedExportFile, name: String) throws(ExportFileError) -> SkippedKeys {
        let before = (matches, order, revocations)
        do {
            return try file.forEachKey { consider($0, from: name) }
        } catch {
            (matches, order, revocations) = before
            throw error
        }
    }

    /// Every key of a file whose signature was not checked (`--insecure-skip-verify`).
    func matchUnverified(_ file: ExportFile, name: String) throws(ExportFileError) -> (ExportHeader, SkippedKeys) {
        let before = (matches, order, revocations)
        do {
            return try file.forEachUnverifiedKey { consider($0.key, from: name) }
        } catch {
            (matches, order, revocations) = before
            throw error
        }
    }

    /// What risk scoring needs of a match: the sightings that survived matching, with attenuations from
    /// the TX power each sighting's decrypted metadata declared.
    func matchedKey(_ match: Match) -> MatchedKey {
        let sightings = match.hits.map { hit -> MatchedSighting in
            let s = matcher.sightings[hit.sightingIndex]
            let strongest = s.rssiMax == 127 ? 255 : max(0, Int(hit.metadata.txPower) - Int(s.rssiMax))
            return MatchedSighting(time: s.firstSeen, attenuation: UInt8(clamping: hit.attenuation),
                                   minimumAttenuation: UInt8(clamping: strongest),
                                   secondsSincePreviousScan: s.secondsSincePreviousScan)
        }
        return MatchedKey(rollingStart: match.key.tek.rollingStart, transmissionRiskLevel: match.key.transmissionRiskLevel,
                          reportType: match.key.reportType, daysSinceOnsetOfSymptoms: match.key.daysSinceOnsetOfSymptoms,
                          sightings: sightings)
    }
}
