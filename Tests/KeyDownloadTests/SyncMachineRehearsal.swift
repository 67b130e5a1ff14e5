@testable import AgentBase
import ENCore
@testable import KeyDownload
import Network
import EventLoop

/// A key server, a disk and an exposure log for `SyncMachine`, all in memory: it answers every action the
/// machine asks for at once, as `SyncRun` would once its transfer or job ended, and keeps what was asked.
/// No process, socket, file or loop: a run takes microseconds, so the machine's rules are tested one by one.
struct SyncMachineRehearsal {
    typealias Machine = SyncMachine<String>

    var machine: Machine
    /// What the listing answers, attempt by attempt; the last answer repeats.
    var listing: [Result<[UInt8], HTTPClient.Failure>]
    /// Failures of an entry's downloads, attempt by attempt, before it comes through.
    var failures: [String: [HTTPClient.Failure]] = [:]
    /// Entries whose every download fails so.
    var failingForEver: [String: HTTPClient.Failure] = [:]
    var refusals: [String: ExportFileError] = [:]
    /// Entries' places in multi-file batches; any other entry is a batch of one.
    var batches: [String: BatchPosition] = [:]
    var corruptFiles: [String] = []
    /// What the exposure log says it added per recording, or why it could not be written.
    var newExposuresPerRecording = 1
    var recordingFails: String?
    /// What the detection set aside under embargo when the run ends (nil: nothing was matched).
    var embargo: Machine.Embargo?
    var now: Int64
    /// `jitter` as the machine draws it, and how often it did.
    var jitter = 1.0
    var jitterDraws: Int { draws.count }
    /// A reference, so the machine can draw while the rehearsal is being changed.
    private let draws = Counter()

    private(set) var actions: [Machine.Action] = []
    private(set) var requests: [String] = []
    private(set) var phases: [KeySyncStatus.Phase] = []
    private(set) var logs: [String] = []
    private(set) var retryDelays: [Duration] = []
    private(set) var matchedBatches: [[String]] = []
    private(set) var matchedHeldKeys: [[DiagnosisKey]] = []
    private(set) var discarded: [String] = []
    private(set) var removedDownloads = 0
    private(set) var savedCursors: [SyncCursor] = []
    private(set) var finished: (report: SyncReport, cursor: SyncCursor)?
    private var listingAttempt = 0

    static let index = KeyServer.indexed(indexURL: "http://keys.test/index.txt", baseURL: "http://keys.test/")
    static let cwa = KeyServer.cwa(baseURL: "http://keys.test", country: "DE")

    init(server: KeyServer = index, listing: String, cursor: SyncCursor? = nil, limits: KeySyncLimits = KeySyncLimits(),
         retry: RetryPolicy = RetryPolicy(), now: Int64 = 1_700_000_000) {
        machine = Machine(server: server, cursor: cursor ?? SyncCursor(server: server.identity), limits: limits,
                          retry: retry)
        self.listing = [.success(Array(listing.utf8))]
        self.now = now
    }

    var report: SyncReport { machine.report }
    var cursor: SyncCursor { machine.cursor }
    var outcome: SyncReport.Outcome { machine.report.outcome }

    /// Starts the run and answers everything until it is over.
    mutating func run() {
        perform(machine.start(now: now))
    }

    /// Answers `actions` in order, each answer next in line, as the driver does.
    mutating func perform(_ actions: [Machine.Action]) {
        var queue = actions
        var next = 0
        while next < queue.count {
            let answer = answer(queue[next])
            next += 1
            queue.insert(contentsOf: answer, at: next)
        }
    }

    private mutating func answer(_ action: Machine.Action) -> [Machine.Action] {
        actions.append(action)
        switch action {
        case .phase(let phase):
            phases.append(phase)
        case .log(let level, let line):
            logs.append("\(level): \(line)")
        case .matchHeldKeys(let keys):
            matchedHeldKeys.append(keys)
            return machine.matched(.init(keys: keys.count, slices: 1, elapsed: .milliseconds(5)))
        case .fetchListing(let url, _):
            requests.append(url)
            let result = listing[min(listingAttempt, listing.count - 1)]
            listingAttempt += 1
            switch result {
            case .success(let body): return machine.listingFetched(body, elapsed: .seconds(1))
            case .failure(let failure): return fetchFailed(failure)
            }
        case .download(let entry, let url, _, let attempt):
            requests.append(url)
            if let failure = failingForEver[entry] { return fetchFailed(failure) }
            if let failures = failures[entry], attempt <= failures.count { return fetchFailed(failures[attempt - 1]) }
            return machine.downloaded(bytes: 1_000, elapsed: .seconds(1))
        case .scheduleRetry(let delay):
            retryDelays.append(delay)
            return machine.retryTimerFired()
        case .verify(let entry):
            if let error = refusals[entry] { return machine.refused(error, elapsed: .milliseconds(2)) }
            return machine.verified(entry, at: batches[entry] ?? Self.batch(1, of: 1, id: entry), elapsed: .milliseconds(2))
        case .matchBatch(let files):
            matchedBatches.append(files)
            return machine.matched(.init(keys: 10 * files.count, matchedKeys: 1, corruptFiles: corruptFiles, slices: 2,
                                         elapsed: .milliseconds(5)))
        case .discard(let files):
            discarded += files
        case .removeDownload:
            removedDownloads += 1
        case .recordExposures:
            if let recordingFails { return machine.stopped(recordingFails) }
            return machine.recorded(newExposures: newExposuresPerRecording)
        case .end:
            return machine.close(embargo: embargo, now: now + 60)
        case .saveCursor(let cursor):
            savedCursors.append(cursor)
        case .removeAllDownloads:
            break
        case .finished(let report, let cursor):
            finished = (report, cursor)
        }
        return []
    }

    private mutating func fetchFailed(_ failure: HTTPClient.Failure) -> [Machine.Action] {
        let draws = draws, jitter = jitter
        return machine.fetchFailed(failure, elapsed: .seconds(1), jitter: draws.draw(jitter))
    }

    private final class Counter {
        var count = 0
        func draw(_ value: Double) -> Double {
            count += 1
            return value
        }
    }

    /// File `number` of a batch of `size` files, the batch named by `id`.
    static func batch(_ number: Int32, of size: Int32, id: String) -> BatchPosition {
        BatchPosition(header: ExportHeader(startTimestamp: 0, endTimestamp: 1,
                                           region: id, batchNum: number, batchSize: size))!
    }

    /// A key valid for the day starting at `rollingStart`; usable (its embargo over) at `usableFromUnixSeconds`.
    static func key(_ byte: UInt8, rollingStart: UInt32) -> DiagnosisKey {
        DiagnosisKey(tek: TemporaryExposureKey(keyData: Bytes16([UInt8](repeating: byte, count: 16))!, rollingStart: ENIntervalNumber(rollingStart),
                                               rollingPeriod: 144), transmissionRiskLevel: 4)
    }
}
