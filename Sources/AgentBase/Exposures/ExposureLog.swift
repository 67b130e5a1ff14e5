import ENCore
import EventLoop
import Store
import SystemIO

/// The exposures found so far, in `DATA/exposures` (0600, one JSON object per line, rewritten atomically).
///
/// Records are keyed by `ExposureID`, so a key met again (the same file downloaded twice, a later file
/// repeating it, a revision) updates its record instead of adding one. A revoked key's record is removed and
/// its ID remembered as a tombstone, so that an older file still listing the key cannot bring it back.
/// Records and tombstones go when their day is more than 14 days old, like the sightings they came from.
/// An exposure whose signal a carer acknowledged (the badge's button, `indicator ack`) stays recorded; the
/// acknowledgement is a line of its own (`{"acknowledged":"<id>"}`) that goes with its record.
package final class ExposureLog {
    package static let fileName = "exposures"
    package static let retentionDays: Int64 = 14

    /// What one `apply` changed.
    package struct Changes: Equatable, Sendable {
        /// Exposures never recorded before.
        package var added: [Exposure] = []
        /// Already recorded; their scores were refreshed.
        var updated = 0
        /// Records removed because their key was revoked.
        package var revoked = 0
        package var isEmpty: Bool { added.isEmpty && updated == 0 && revoked == 0 }
    }

    package let path: String
    /// Oldest day first, then by ID.
    package private(set) var exposures: [Exposure] = []
    /// Revoked keys and their day.
    private(set) var revokedIDs: [ExposureID: UTCDay] = [:]
    /// Exposures whose signal was acknowledged: the badge no longer blinks for them.
    package private(set) var acknowledgedIDs: Set<ExposureID> = []

    /// Opens the log of `dataDirectory`; a missing file is an empty log, and a damaged line costs only itself.
    package init(dataDirectory: String, log: Logger) {
        path = dataDirectory + "/" + Self.fileName
        guard let text = TextFile.read(path, limit: 16 << 20) else { return }
        var damaged = 0
        for line in text.split(separator: "\n") where !line.isEmpty {
            if let exposure = Exposure(json: String(line)) {
                exposures.append(exposure)
            } else if let (id, day) = Self.tombstone(String(line)) {
                revokedIDs[id] = day
            } else if let id = Self.acknowledgement(String(line)) {
                acknowledgedIDs.insert(id)
            } else {
                damaged += 1
            }
        }
        exposures = Self.sorted(Self.byID(exposures).values)
        acknowledgedIDs.formIntersection(exposures.map { $0.id })
        if damaged > 0 { log.warn("exposures: skipped \(damaged) damaged line(s) in \(path)") }
    }

    /// Records exposures and revocations found in one batch of keys, written in one atomic replace. A record
    /// already present keeps when it was detected and whether it was notified. On a write error nothing changes.
    @discardableResult
    package func apply(found: [Exposure], revoked: [(id: ExposureID, day: UTCDay)] = []) throws(SystemError) -> Changes {
        var byID = Self.byID(exposures)
        var tombstones = revokedIDs
        var changes = Changes()
        for (id, day) in revoked { tombstones[id] = day }
        for var exposure in found where tombstones[exposure.id] == nil {
            if let existing = byID[exposure.id] {
                exposure.detectedAt = existing.detectedAt
                exposure.notified = existing.notified
                if exposure != existing { changes.updated += 1 }
            } else if !changes.added.contains(where: { $0.id == exposure.id }) {
                changes.added.append(exposure)
            }
            byID[exposure.id] = exposure
        }
        let recorded = Set(exposures.map { $0.id })
        for (id, _) in revoked where byID.removeValue(forKey: id) != nil && recorded.contains(id) {
            changes.revoked += 1
        }
        // Keep the latest version of an exposure found twice in one batch (its revision).
        changes.added = changes.added.compactMap { byID[$0.id] }
        guard !changes.isEmpty || tombstones != revokedIDs else { return changes }
        try replace(with: Self.sorted(byID.values), tombstones: tombstones)
        return changes
    }

    /// Marks exposures as notified.
    func markNotified(_ ids: Set<ExposureID>) throws(SystemError) {
        guard !ids.isEmpty else { return }
        try replace(with: exposures.map { exposure in
            var marked = exposure
            if ids.contains(exposure.id) { marked.notified = true }
            return marked
        }, tombstones: revokedIDs)
    }

    /// Marks exposures as acknowledged (a carer has seen the signal); they stay recorded.
    package func acknowledge(_ ids: Set<ExposureID>) throws(SystemError) {
        guard !ids.isSubset(of: acknowledgedIDs) else { return }
        try replace(with: exposures, tombstones: revokedIDs, acknowledged: acknowledgedIDs.union(ids))
    }

    /// Marks exposures as acknowledged in memory only, when writing the mark failed.
    package func acknowledgeForThisRun(_ ids: Set<ExposureID>) {
        acknowledgedIDs.formUnion(ids)
    }

    /// Removes records and tombstones whose day is more than 14 days before `today`; returns how many
    /// records went.
    @discardableResult
    package func prune(today: UTCDay) throws(SystemError) -> Int {
        let oldest = UTCDay(daysSinceEpoch: today.daysSinceEpoch - Self.retentionDays)
        let kept = exposures.filter { $0.date >= oldest }
        let tombstones = revokedIDs.filter { $0.value >= oldest }
        guard kept.count != exposures.count || tombstones.count != revokedIDs.count else { return 0 }
        let removed = exposures.count - kept.count
        try replace(with: kept, tombstones: tombstones)
        return removed
    }

    /// Forgets everything (the console's `wipe`).
    package func removeAll() throws(SystemError) {
        try replace(with: [], tombstones: [:])
    }

    private func replace(with records: [Exposure], tombstones: [ExposureID: UTCDay],
                         acknowledged: Set<ExposureID>? = nil) throws(SystemError) {
        // An acknowledgement lives as long as its record (a revoked or pruned exposure takes it along).
        let acknowledged = (acknowledged ?? acknowledgedIDs).intersection(records.map { $0.id })
        var text = ""
        for exposure in records { text += exposure.json + "\n" }
        for id in acknowledged.sorted() {
            var object = JSONObject()
            object.string("acknowledged", id.hex)
            text += object.text + "\n"
        }
        for (id, day) in tombstones.sorted(by: { $0.key < $1.key }) {
            var object = JSONObject()
            object.string("revoked", id.hex)
            object.string("date", day.description)
            text += object.text + "\n"
        }
        try AtomicFile.write(Array(text.utf8), to: path, mode: 0o600)
        exposures = records
        revokedIDs = tombstones
        acknowledgedIDs = acknowledged
    }

    private static func tombstone(_ line: String) -> (ExposureID, UTCDay)? {
        guard case .object(let m)? = try? JSONValue.parse(line), m.count == 2,
              case .string(let idText)? = m["revoked"], let id = ExposureID(hex: idText),
              case .string(let dayText)? = m["date"], let day = UTCDay(isoDate: dayText) else { return nil }
        return (id, day)
    }

    private static func acknowledgement(_ line: String) -> ExposureID? {
        guard case .object(let m)? = try? JSONValue.parse(line), m.count == 1,
              case .string(let idText)? = m["acknowledged"] else { return nil }
        return ExposureID(hex: idText)
    }

    /// The last record of each exposure. A loop rather than `Dictionary(_:uniquingKeysWith:)`, whose rethrowing
    /// merge casts errors at run time, which the board build (Embedded Swift) cannot do.
    private static func byID(_ exposures: [Exposure]) -> [ExposureID: Exposure] {
        var byID: [ExposureID: Exposure] = [:]
        for exposure in exposures { byID[exposure.id] = exposure }
        return byID
    }

    private static func sorted(_ records: some Sequence<Exposure>) -> [Exposure] {
        records.sorted { ($0.date, $0.id) < ($1.date, $1.id) }
    }
}
