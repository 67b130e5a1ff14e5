import Agent
import ENCore
import EventLoop

/// Matches the keys of one complete export batch against the stored sightings, in loop slices of
/// `keysPerSlice` keys, so the radio and the console keep running while millions of keys go by.
///
/// Keys stream out of each file's resumable iterator one at a time and only matched keys are kept: memory
/// is the batch's files plus the hits, however many keys they hold. Revoked keys (report type 5 in
/// `revised_keys`) are collected for the exposure log. A file that turns out corrupt past its header
/// contributes nothing, even keys already read from it.
final class BatchMatchJob {
    struct Outcome {
        /// Keys with sightings that survived every matching rule.
        var matched: [(key: DiagnosisKey, matchedKey: MatchedKey)] = []
        var revoked: [(id: ExposureID, day: UTCDay)] = []
        /// Valid keys read, revoked ones included.
        var keys = 0
        var skippedRecords = 0
        /// One line per file dropped as corrupt.
        var corruptFiles: [String] = []
        var slices = 0
        var elapsed: Duration = .zero
    }

    private let chunks: [VerifiedExport]
    private let matcher: KeyMatcher?
    private let loop: any EventLoop
    private var chunkIndex = 0
    private var iterator: ExportKeyIterator?
    /// The current file's results, added to `outcome` only once the whole file has been read.
    private var pending = Outcome()
    private var outcome = Outcome()
    private var job: SlicedJob?

    /// `matcher` nil: there are no sightings, so only revocations are looked for.
    init(chunks: [VerifiedExport], matcher: KeyMatcher?, loop: any EventLoop) {
        self.chunks = chunks
        self.matcher = matcher
        self.loop = loop
    }

    func start(keysPerSlice: Int, completion: @escaping (Outcome) -> Void) {
        let started = loop.now
        job = SlicedJob.start(on: loop, budget: .iterations(max(1, keysPerSlice)), step: { [unowned self] in
            self.step()
        }, onFinished: { [unowned self] in
            self.outcome.slices = self.job?.slices ?? 0
            self.outcome.elapsed = self.loop.now - started
            self.job = nil
            completion(self.outcome)
        })
    }

    func cancel() {
        job?.cancel()
        job = nil
    }

    /// One key, or the move to the next file.
    private func step() -> SliceResult {
        if iterator == nil {
            guard chunkIndex < chunks.count else { return .done }
            iterator = chunks[chunkIndex].makeKeyIterator()
            pending = Outcome()
        }
        do {
            if let next = try iterator!.next() {
                examine(next.key, list: next.list)
            } else {
                outcome.matched += pending.matched
                outcome.revoked += pending.revoked
                outcome.keys += pending.keys
                outcome.skippedRecords += iterator!.skipped.total
                nextChunk()
            }
        } catch {
            let export = chunks[chunkIndex]
            outcome.corruptFiles.append("\(export.batch.batch) file \(export.batch.number): \(error)")
            nextChunk()
        }
        return .more
    }

    private func nextChunk() {
        iterator = nil
        chunkIndex += 1
    }

    private func examine(_ key: DiagnosisKey, list: ExportKeyList) {
        pending.keys += 1
        if key.reportType == .revoked {
            // Validation admits revoked keys only in revised_keys.
            pending.revoked.append((ExposureID(key: key.tek), UTCDay(key.tek.rollingStart)))
            return
        }
        guard let matcher else { return }
        let hits = matcher.match(key)
        guard !hits.isEmpty, let matched = MatchedKey(key: key, hits: hits, sightings: matcher.sightings) else { return }
        pending.matched.append((key, matched))
    }
}
