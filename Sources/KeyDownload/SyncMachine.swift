import AgentBase
import ENCore
import EventLoop
import Network

/// The rules of one key download run, with no I/O: a value that takes events (the listing arrived, a download
/// failed, a file verified, a batch matched…) and answers with the actions to perform, in order. `SyncRun`
/// performs them with libcurl, the loop, files and the exposure log, and feeds back what came of them; the
/// rules — what is retried, skipped or stops the run, when an export is given up, which entries a run takes,
/// when the cursor moves, what is held under embargo — are tested here with no process, socket or file.
///
/// Modelled on swift-nio's `ProtocolNegotiationHandlerStateMachine` (mutating methods take events and return
/// actions) and on `RadioPlan` in this code base. Generic over `File`, what the driver keeps of a verified
/// download (the export and its file in `SyncRun`, a name in tests), rather than holding an existential: the
/// board's Embedded Swift build allows only class-bound ones.
///
/// An action that can fail on the spot (creating a download's file, opening it for verification, reading the
/// sightings, writing the exposure log) is always the last of its list, and the driver answers it at once
/// with the matching event or `stopped`, so what follows it is decided with its outcome known. Each event is
/// accepted only in the stage that expects it; anything else (a late completion after `cancel`) is ignored.
///
/// The key share follows the same pattern: `ShareMachine` (in Agent) holds its rules, and `KeyShare` performs
/// them.
struct SyncMachine<File> {
    /// What the driver does, in the order given.
    enum Action {
        case phase(KeySyncStatus.Phase)
        case log(Logger.Level, String)
        /// Match keys earlier runs held until their embargo ended; answer `matched` (or `stopped`).
        case matchHeldKeys([DiagnosisKey])
        /// GET the listing; answer `listingFetched` or `fetchFailed`.
        case fetchListing(url: String, maximumBytes: Int)
        /// Download an entry to its file (a new file on attempt 1, emptied again before each retry); answer
        /// `downloaded` or `fetchFailed` (or `stopped` when no file can be created).
        case download(entry: String, url: String, maximumBytes: Int, attempt: Int)
        /// Answer `retryTimerFired` after `delay`.
        case scheduleRetry(after: Duration)
        /// Check the signature of the download just written; answer `verified` or `refused` (or `stopped`
        /// when the file cannot be read back).
        case verify(entry: String)
        /// Feed a complete batch, in batch-number order, to the run's detection; answer `matched`.
        case matchBatch([File])
        /// Close and delete these verified downloads: matched, or a repeat of a file already held.
        case discard([File])
        /// Delete the current entry's download, closing it first if it is still open for writing.
        case removeDownload
        /// Score and record what the run has matched so far; answer `recorded` or `stopped`.
        case recordExposures
        /// The run is over: answer `close` with the keys the detection set aside under embargo.
        case end
        case saveCursor(SyncCursor)
        case removeAllDownloads
        /// Tell the run's owner; never after `cancel`.
        case finished(SyncReport, SyncCursor)
    }

    /// What a match job reports: the detection's figures so far, and the job's own.
    struct MatchFigures: Equatable {
        var keys = 0
        var matchedKeys = 0
        var revokedKeys = 0
        /// One line per file of the batch dropped as corrupt.
        var corruptFiles: [String] = []
        var slices = 0
        var elapsed: Duration = .zero
    }

    /// What the run's detection set aside under embargo (nil in `close` when nothing was matched).
    struct Embargo: Equatable {
        var counts = EmbargoCounts()
        var keys: [DiagnosisKey] = []
    }

    private enum Fetch: Equatable {
        case listing
        case entry(Int)
    }

    private enum Match {
        case heldKeys(remaining: [DiagnosisKey], released: Int)
        /// The batch completed by entry `index`.
        case batch(index: Int, files: [File])
    }

    private enum Stage {
        case notStarted
        case fetching(Fetch, attempt: Int)
        /// `attempt` is the one the timer starts.
        case waitingToRetry(Fetch, attempt: Int, delay: Duration)
        case verifying(index: Int)
        case matching(Match)
        case recording(Match)
        case ending(SyncReport.Outcome)
        case over
    }

    let server: KeyServer
    private let limits: KeySyncLimits
    private let retry: RetryPolicy
    private(set) var cursor: SyncCursor
    private(set) var report = SyncReport()
    private var stage = Stage.notStarted
    private var collector = BatchCollector<File>()
    /// The days a Corona-Warn-App server lists (the cursor keeps only those).
    private var listedDays: [String] = []
    private var pending: [KeyServerListing.Entry] = []
    /// Entries processed but not yet in the cursor: files waiting for the rest of their batch.
    private var uncommitted: [String] = []

    init(server: KeyServer, cursor: SyncCursor, limits: KeySyncLimits, retry: RetryPolicy) {
        self.server = server
        self.cursor = cursor
        self.limits = limits
        self.retry = retry
    }

    /// Ending or over: every event but `close` is ignored from now on.
    var isOver: Bool {
        switch stage {
        case .ending, .over: true
        default: false
        }
    }

    private var isIndexed: Bool { if case .indexed = server { true } else { false } }

    // MARK: Events

    /// Held keys whose embargo has ended are matched first: that needs no network, so a badge whose key server
    /// is unreachable still learns of an exposure it can already see. They leave the cursor only once their
    /// exposures are recorded.
    mutating func start(now: Int64) -> [Action] {
        guard case .notStarted = stage else { return [] }
        report.startedAt = now
        var remaining = cursor
        let released = remaining.releaseHeldKeys(at: now)
        guard !released.isEmpty else { return fetchListing(attempt: 1) }
        stage = .matching(.heldKeys(remaining: remaining.heldKeys, released: released.count))
        return [.phase(.matchingHeldKeys), .matchHeldKeys(released)]
    }

    mutating func listingFetched(_ body: [UInt8], elapsed: Duration) -> [Action] {
        guard case .fetching(.listing, _) = stage else { return [] }
        report.downloadTime += elapsed
        var actions: [Action] = []
        do throws(KeyServerListing.ListingError) {
            if isIndexed {
                let index = try KeyServerListing.index(body, after: cursor.lastLine, limits: limits)
                if index.cursorLost {
                    actions.append(.log(.info, "key sync: the index no longer lists the last processed line; taking "
                                        + "all \(index.pending.count + index.deferred) lines"))
                }
                report.listed = index.lineCount
                pending = index.pending
                report.deferred = index.deferred
            } else {
                listedDays = try KeyServerListing.days(body)
                let days = cursor.pendingDays(in: listedDays)
                report.listed = listedDays.count
                pending = days.prefix(limits.maxFiles).map { KeyServerListing.Entry(name: $0) }
                report.deferred = days.count - pending.count
            }
        } catch {
            return finish(.failed("listing \(server.listingURL): \(error)"))
        }
        report.new = pending.count + report.deferred
        if report.deferred > 0 {
            actions.append(.log(.info, "key sync: \(report.new) new exports listed; \(pending.count) now, "
                                + "\(report.deferred) in the next sync (\(limits.keyName(.syncMaxFiles)))"))
        }
        return actions + advance(from: 0)
    }

    mutating func downloaded(bytes: Int, elapsed: Duration) -> [Action] {
        guard case .fetching(.entry(let index), _) = stage else { return [] }
        report.downloadTime += elapsed
        report.bytes += bytes
        stage = .verifying(index: index)
        return [.phase(.verifying(file: index + 1, of: pending.count)), .verify(entry: pending[index].name)]
    }

    /// Network errors and 5xx (408, 429) are retried with exponential backoff, up to the policy's attempts;
    /// `jitter` (0.5…1.5) is drawn only when a retry is scheduled.
    mutating func fetchFailed(_ failure: HTTPClient.Failure, elapsed: Duration,
                              jitter: @autoclosure () -> Double) -> [Action] {
        guard case .fetching(let fetch, let attempt) = stage else { return [] }
        report.downloadTime += elapsed
        let verdict = RetryPolicy.verdict(for: failure, isListing: fetch == .listing)
        if verdict == .retry && attempt < retry.attempts {
            let delay = retry.delay(afterAttempt: attempt, jitter: jitter())
            report.retries += 1
            stage = .waitingToRetry(fetch, attempt: attempt + 1, delay: delay)
            return [.log(.info, "key sync: \(failure); attempt \(attempt + 1) of \(retry.attempts) in \(delay.humanReadable)"),
                    .phase(.retrying(attempt: attempt + 1, of: retry.attempts)), .scheduleRetry(after: delay)]
        }
        guard case .entry(let index) = fetch else {
            return finish(.failed("listing \(server.listingURL): \(explained(failure, isListing: true))"))
        }
        let entry = pending[index].name
        switch verdict {
        case .skipFile:
            return [.removeDownload] + skip(entry, explained(failure, isListing: false)) + advance(from: index + 1)
        case .stopRun:
            return [.removeDownload] + finish(.failed("\(entry): \(failure)"))
        case .retry:
            return [.removeDownload] + giveUpOrStop(entry, failure, index)
        }
    }

    mutating func retryTimerFired() -> [Action] {
        guard case .waitingToRetry(let fetch, let attempt, let delay) = stage else { return [] }
        report.downloadTime += delay
        switch fetch {
        case .listing: return fetchListing(attempt: attempt)
        case .entry(let index): return download(index, attempt: attempt)
        }
    }

    /// A verified file waits for the rest of its batch; the file that completes it has the batch matched.
    mutating func verified(_ file: File, at position: BatchPosition, elapsed: Duration) -> [Action] {
        guard case .verifying(let index) = stage else { return [] }
        report.verifyTime += elapsed
        let entry = pending[index].name
        var actions: [Action]
        switch collector.add(file, at: position) {
        case .waiting(let received, let size):
            actions = [.log(.debug, "key sync: \(entry) is file \(position.number) of \(size) of its batch "
                            + "(\(received) here)")]
        case .duplicate:
            actions = [.log(.info, "key sync: \(entry) repeats file \(position.number) of a batch already held; "
                            + "ignored"), .discard([file])]
        case .complete(let files):
            stage = .matching(.batch(index: index, files: files))
            return [.phase(.matching(file: index + 1, of: pending.count)), .matchBatch(files)]
        }
        report.processed += 1
        processed(entry)
        return actions + advance(from: index + 1)
    }

    /// A download that is not a valid export signed by the configured key is refused like a skipped entry; a
    /// file that cannot be read back (the disk) stops the run instead.
    mutating func refused(_ error: ExportFileError, elapsed: Duration) -> [Action] {
        guard case .verifying(let index) = stage else { return [] }
        report.verifyTime += elapsed
        let entry = pending[index].name
        if case .read = error { return [.removeDownload] + finish(.failed("\(entry): \(error)")) }
        report.rejected += 1
        report.refuse("\(entry): rejected, \(error)")
        processed(entry)
        return [.removeDownload, .log(.warn, "key sync: rejected \(entry): \(error)")] + advance(from: index + 1)
    }

    mutating func matched(_ figures: MatchFigures) -> [Action] {
        guard case .matching(let match) = stage else { return [] }
        report.matchTime += figures.elapsed
        report.matchSlices += figures.slices
        report.keys = figures.keys
        report.matchedKeys = figures.matchedKeys
        report.revokedKeys = figures.revokedKeys
        stage = .recording(match)
        guard case .batch(_, let files) = match else { return [.recordExposures] }
        var actions: [Action] = [.discard(files)]
        for line in figures.corruptFiles {
            actions.append(.log(.warn, "key sync: dropped corrupt export \(line)"))
            report.refuse("dropped corrupt export \(line)")
        }
        return actions + [.recordExposures]
    }

    mutating func recorded(newExposures: Int) -> [Action] {
        guard case .recording(let match) = stage else { return [] }
        report.newExposures += newExposures
        switch match {
        case .heldKeys(let remaining, let released):
            cursor.heldKeys = remaining
            report.releasedKeys = released
            return [.log(.info, "key sync: matched \(released) key(s) held until their embargo ended")]
                + fetchListing(attempt: 1)
        case .batch(let index, _):
            report.processed += 1
            processed(pending[index].name)
            return advance(from: index + 1)
        }
    }

    /// The driver could not do what it was asked (the disk, the store, the exposure log): the run stops.
    mutating func stopped(_ reason: String) -> [Action] {
        finish(.failed(reason))
    }

    /// Stops at once, with no `finished`: what was processed is kept in the cursor, written now.
    mutating func cancel() -> [Action] {
        finish(.cancelled)
    }

    /// The answer to `end`: the cursor is written once, when the run ends however it ends, with the keys still
    /// under embargo held in it. A key of a file the cursor has not moved past yet is held too, and held once
    /// more when the file is read again; one whose embargo ends more than a day after now was published before
    /// it was even valid, and is not held.
    mutating func close(embargo: Embargo?, now: Int64) -> [Action] {
        guard case .ending(let outcome) = stage else { return [] }
        stage = .over
        var actions: [Action] = []
        if outcome == .succeeded {
            for (batch, received) in collector.incomplete {
                actions.append(.log(.warn, "key sync: batch \(batch) incomplete with \(received) file(s); they are "
                                    + "ignored"))
            }
            commit()
            cursor.lastSuccess = now
        }
        if let embargo { actions += hold(embargo) }
        actions += [.saveCursor(cursor), .removeAllDownloads]
        report.outcome = outcome
        guard outcome != .cancelled else { return actions }
        report.finishedAt = now
        return actions + [.finished(report, cursor)]
    }

    // MARK: Rules

    private mutating func fetchListing(attempt: Int) -> [Action] {
        stage = .fetching(.listing, attempt: attempt)
        let cap = isIndexed ? limits.maxIndexBytes : KeySyncLimits.maxDayListBytes
        return [.phase(.listing), .fetchListing(url: server.listingURL, maximumBytes: cap)]
    }

    private mutating func download(_ index: Int, attempt: Int) -> [Action] {
        stage = .fetching(.entry(index), attempt: attempt)
        let entry = pending[index].name
        return [.phase(.downloading(file: index + 1, of: pending.count)),
                .download(entry: entry, url: server.exportURL(for: entry), maximumBytes: limits.maxFileBytes,
                          attempt: attempt)]
    }

    /// The next entry to download from `first` on, or the end of the run. Malformed lines are passed over here,
    /// in a loop: a long run of them costs no nesting.
    private mutating func advance(from first: Int) -> [Action] {
        var actions: [Action] = []
        var index = first
        while index < pending.count, let problem = pending[index].problem {
            actions += skip(pending[index].name, problem)
            index += 1
        }
        guard index < pending.count else { return actions + finish(.succeeded) }
        return actions + download(index, attempt: 1)
    }

    /// An entry whose retries ran out: the run stops, unless this is the `sync.give_up_after_runs`-th (or the
    /// server's own figure's) run in a row to stop on it, which skips it instead.
    private mutating func giveUpOrStop(_ entry: String, _ failure: HTTPClient.Failure, _ index: Int) -> [Action] {
        let runs = (cursor.failing?.entry == entry ? cursor.failing?.runs ?? 0 : 0) + 1
        guard runs >= limits.giveUpAfterRuns else {
            cursor.failing = SyncCursor.Failing(entry: entry, runs: runs)
            return finish(.failed("\(entry): \(failure)"))
        }
        return skip(entry, "given up after \(runs) sync(s) in a row could not download it "
                    + "(\(limits.keyName(.syncGiveUpAfterRuns))): \(failure)") + advance(from: index + 1)
    }

    /// An entry passed over for good: logged once, and the cursor moves past it.
    private mutating func skip(_ entry: String, _ reason: String) -> [Action] {
        report.skipped += 1
        report.refuse("\(entry): skipped, \(reason)")
        processed(entry)
        return [.log(.warn, "key sync: skipping \(entry): \(reason)")]
    }

    /// Marks an entry done; the cursor moves once no batch is waiting for more files.
    private mutating func processed(_ entry: String) {
        uncommitted.append(entry)
        if cursor.failing?.entry == entry { cursor.failing = nil }
        if collector.incomplete.isEmpty { commit() }
    }

    private mutating func commit() {
        guard !uncommitted.isEmpty else { return }
        cursor.commit(uncommitted, indexed: isIndexed, listed: listedDays)
        uncommitted.removeAll()
    }

    private mutating func finish(_ outcome: SyncReport.Outcome) -> [Action] {
        guard !isOver else { return [] }
        stage = .ending(outcome)
        return [.end]
    }

    private mutating func hold(_ embargo: Embargo) -> [Action] {
        var actions: [Action] = []
        if embargo.counts.notValidYet > 0 {
            report.notValidYetKeys = embargo.counts.notValidYet
            actions.append(.log(.warn, "key sync: \(embargo.counts.notValidYet) key(s) not valid yet, ignored"))
        }
        let before = cursor.heldKeys.count
        let dropped = embargo.counts.overCapacity + cursor.hold(embargo.keys)
        report.heldKeys = cursor.heldKeys.count - before
        report.droppedHeldKeys = dropped
        if dropped > 0 {
            actions.append(.log(.warn, "key sync: \(dropped) key(s) under embargo not held: at most "
                                + "\(SyncCursor.maxHeldKeys) are"))
        }
        if report.heldKeys > 0 {
            actions.append(.log(.info, "key sync: \(report.heldKeys) key(s) under embargo held for a later sync"))
        }
        return actions
    }

    /// A failure in words, naming the configuration key when a limit refused the transfer.
    private func explained(_ failure: HTTPClient.Failure, isListing: Bool) -> String {
        switch failure {
        case .tooLarge: "\(failure) (\(limits.keyName(isListing ? .syncMaxIndexBytes : .syncMaxFileBytes)))"
        case .tooManyRedirects: "\(failure) (\(limits.keyName(.syncMaxRedirects)))"
        default: "\(failure)"
        }
    }
}

extension SyncMachine.Action: Equatable where File: Equatable {}
