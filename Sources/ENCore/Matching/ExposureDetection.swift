/// Diagnosis keys in, exposures out: the one matching pipeline, which the agent's key sync and
/// `enbeacon match` both feed with the keys of their export files, one key at a time and one file at a time.
///
/// - **Matching**: each key goes through the `KeyMatcher` built over the stored sightings (none: only
///   revocations are looked for).
/// - **Assembly**: the hits of a key become the `MatchedKey` risk scoring reads, each sighting with its
///   time, its attenuations from the TX power its decrypted metadata declared, and its scan gap. A sighting
///   without RSSI is kept at `Sighting.unknownAttenuation` (see `SignalStrength`).
/// - **De-duplication**: keys are identified by key data and rolling start (`ExposureID`). A key seen again
///   — the same key in a daily and a 14-day file, a revision in `revised_keys` — replaces the earlier match,
///   so the later report type wins; a key that no longer matches leaves the earlier match standing.
/// - **Revocation**: a key with report type REVOKED removes its match and is remembered, so that no file read
///   later brings it back (the agent's exposure log keeps the same tombstones across runs).
/// - **Scoring**: v1 and v2 through `ExposureScoring`, one `Exposure` per standing match.
/// - **Embargo**: a key that may not be matched yet (SPEC §4) is set aside in `embargoed`, for a caller that
///   reads each file once (the agent's key sync) to match it again once its embargo is over. What is set
///   aside is bounded as the keys stream in (`EmbargoHold`): a file of a million keys under embargo, or of
///   keys of the future, costs a counter, not memory.
///
/// Files are transactions: `beginFile`, keys, then `endFile` — or `abandonFile` when the file turned out
/// corrupt past its header, which takes back everything its keys did.
public final class ExposureDetection {
    /// One key found among the sightings.
    public struct Match: Sendable {
        public var key: DiagnosisKey
        public var id: ExposureID
        /// The sightings it explains, in sighting order.
        public var hits: [KeyMatcher.Hit]
        /// What risk scoring reads of it.
        public var matchedKey: MatchedKey
        /// The export file it came from (the last one, if several listed it).
        public var file: String
    }

    /// Everything found so far, as one value so that a file can be taken back.
    private struct State {
        var matches: [ExposureID: Match] = [:]
        var order: [ExposureID] = []
        var revoked: [ExposureID: UTCDay] = [:]
        var embargoed: [ExposureID: DiagnosisKey] = [:]
        /// `embargoed`'s keys in the order they were first set aside: a caller gets them without a sort.
        var embargoOrder: [ExposureID] = []
        var embargoCounts = EmbargoCounts()
        var revocations = 0
        var keys = 0
    }

    /// Nil when there are no sightings.
    public let matcher: KeyMatcher?
    /// Which keys under embargo are set aside, and how many at most.
    public let hold: EmbargoHold
    private var state = State()
    /// The state before the file being read, to go back to if it is abandoned.
    private var beforeFile: State?
    private var file = ""

    /// Keys under embargo are only counted unless `hold` says which to set aside (the agent's key sync).
    public init(matcher: KeyMatcher?, hold: EmbargoHold = .none) {
        self.matcher = matcher
        self.hold = hold
    }

    /// The matches still standing, in the order they were first found.
    public var matched: [Match] { state.order.compactMap { state.matches[$0] } }
    /// Every revoked key seen, with its day (the exposure log's tombstones).
    public var revoked: [(id: ExposureID, day: UTCDay)] {
        state.revoked.map { ($0.key, $0.value) }.sorted { $0.id < $1.id }
    }
    /// The keys set aside because their embargo was not over, unless revoked since, in the order first seen:
    /// at most `hold.capacity`. Empty without sightings: a key's RPIs were all on air before its embargo began.
    public var embargoed: [DiagnosisKey] {
        state.embargoOrder.compactMap { state.embargoed[$0] }
    }
    /// What became of the keys under embargo: set aside, or left out and why.
    public var embargoCounts: EmbargoCounts { state.embargoCounts }
    /// Matches removed by a revocation.
    public var revocations: Int { state.revocations }
    /// Valid keys considered, revoked ones included.
    public var keys: Int { state.keys }

    public func beginFile(_ name: String) {
        precondition(beforeFile == nil, "a file is already being read")
        beforeFile = state
        file = name
    }

    /// The file's keys count.
    public func endFile() {
        beforeFile = nil
    }

    /// The file's keys are taken back, as if it had never been read.
    public func abandonFile() {
        if let beforeFile { state = beforeFile }
        beforeFile = nil
    }

    /// One valid key of the file being read.
    public func consider(_ key: DiagnosisKey) {
        state.keys += 1
        let id = ExposureID(key: key.tek)
        if key.reportType == .revoked {
            state.revoked[id] = UTCDay(key.tek.rollingStart)
            if state.embargoed.removeValue(forKey: id) != nil {
                state.embargoOrder.removeAll { $0 == id }
                state.embargoCounts.held -= 1
            }
            if state.matches.removeValue(forKey: id) != nil { state.revocations += 1 }
            return
        }
        guard state.revoked[id] == nil, let matcher else { return }
        let hits = matcher.match(key)
        guard !hits.isEmpty else {
            if key.reportType != .recursive && matcher.isEmbargoed(key) { setAside(key, id: id) }
            return
        }
        let match = Match(key: key, id: id, hits: hits, matchedKey: Self.matchedKey(key, hits: hits, in: matcher.sightings,
                                                                                       rssiCorrection: matcher.rules.rssiCorrection),
                          file: file)
        if state.matches.updateValue(match, forKey: id) == nil { state.order.append(id) }
    }

    /// Keeps a key under embargo for later, if the hold allows: bounded here, as the file streams.
    private func setAside(_ key: DiagnosisKey, id: ExposureID) {
        if state.embargoed[id] != nil {
            // The same key again (a revision): the later report replaces the earlier, in its place.
            state.embargoed[id] = key
        } else if key.usableFromUnixSeconds > hold.usableBy {
            state.embargoCounts.notValidYet += 1
        } else if state.embargoed.count >= hold.capacity {
            state.embargoCounts.overCapacity += 1
        } else {
            state.embargoed[id] = key
            state.embargoOrder.append(id)
            state.embargoCounts.held += 1
        }
    }

    /// The standing matches scored: one `Exposure` each, unless v1 finds no exposure in it.
    public func exposures(v1: ExposureConfigurationV1, v2: ExposureConfigurationV2, today: UTCDay,
                          detectedAt: Int64) -> [Exposure] {
        matched.compactMap { match in
            ExposureScoring.exposure(to: match.matchedKey, id: match.id, v1: v1, v2: v2, today: today,
                                     detectedAt: detectedAt)
        }
    }

    /// The hits of `key` in the form risk scoring reads.
    static func matchedKey(_ key: DiagnosisKey, hits: [KeyMatcher.Hit], in sightings: [Sighting],
                           rssiCorrection: Int) -> MatchedKey {
        let matched = hits.map { hit in
            let sighting = sightings[hit.sightingIndex]
            let txPower = hit.metadata.txPower
            return MatchedSighting(time: sighting.firstSeen,
                                   attenuation: UInt8(clamping: sighting.attenuation(txPower: txPower, rssiCorrection: rssiCorrection)),
                                   minimumAttenuation: UInt8(clamping: sighting.minimumAttenuation(txPower: txPower,
                                                                                                  rssiCorrection: rssiCorrection)),
                                   secondsSincePreviousScan: sighting.secondsSincePreviousScan,
                                   calibrationConfidence: hit.metadata.calibrationConfidence,
                                   reports: sighting.reports)
        }
        return MatchedKey(rollingStart: key.tek.rollingStart, transmissionRiskLevel: key.transmissionRiskLevel,
                          reportType: key.reportType, daysSinceOnsetOfSymptoms: key.daysSinceOnsetOfSymptoms,
                          sightings: matched)
    }
}

extension ExposureDetection {
    /// Every key of a verified file, in one call (for callers that need not slice): the file is a
    /// transaction, taken back if it fails halfway. Returns the records skipped as invalid.
    @discardableResult
    public func consider(_ file: VerifiedExportFile, name: String) throws(ExportFileError) -> SkippedKeys {
        beginFile(name)
        do {
            let skipped = try file.forEachKey { consider($0) }
            endFile()
            return skipped
        } catch {
            abandonFile()
            throw error
        }
    }

    /// Every key of a file whose signature was not checked (`enbeacon match --insecure-skip-verify`).
    @discardableResult
    public func considerUnverified(
        _ file: ExportFile, name: String
    ) throws(ExportFileError) -> (header: ExportHeader, skipped: SkippedKeys) {
        beginFile(name)
        do {
            let read = try file.forEachUnverifiedKey { consider($0.key) }
            endFile()
            return read
        } catch {
            abandonFile()
            throw error
        }
    }
}
