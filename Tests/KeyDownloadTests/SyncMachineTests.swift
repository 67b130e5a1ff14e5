@testable import AgentBase
import ENCore
@testable import KeyDownload
import Network
import Testing

/// The rules of a key download run, on `SyncMachine` alone: no process, socket, file or loop. Each test
/// names the tests whose rule it pins down here: against real servers or folders (KeySyncEndToEndTests,
/// KeySyncHardeningTests, KeySyncEmbargoTests), or the pure and console tests of the same rule
/// (KeySyncUnitTests, KeySyncConsoleTests).
@Suite struct SyncMachineTests {
    typealias Rehearsal = SyncMachineRehearsal
    static let base = "http://keys.test/"
    /// Interval numbers around `Rehearsal`'s default now (1,700,000,000 = interval 2,833,333).
    static let currentInterval: UInt32 = 2_833_333

    /// Mirrors httpSyncTakesNewLinesOnly… and fileFolderSyncsLikeAServer: the whole conversation of a run
    /// with one new entry, in order.
    @Test func aRunAsksForEachStepInTurnAndWritesTheCursorOnceAtTheEnd() {
        var r = Rehearsal(listing: "a.zip\n")
        r.run()
        let expected: [Rehearsal.Machine.Action] = [
            .phase(.listing), .fetchListing(url: "http://keys.test/index.txt", maximumBytes: KeySyncLimits().maxIndexBytes),
            .phase(.downloading(file: 1, of: 1)),
            .download(entry: "a.zip", url: Self.base + "a.zip", maximumBytes: KeySyncLimits().maxFileBytes, attempt: 1),
            .phase(.verifying(file: 1, of: 1)), .verify(entry: "a.zip"),
            .phase(.matching(file: 1, of: 1)), .matchBatch(["a.zip"]), .discard(["a.zip"]), .recordExposures,
            .end,
        ]
        #expect(Array(r.actions.prefix(expected.count)) == expected)
        guard case .saveCursor(let saved) = r.actions[expected.count], let finished = r.finished else {
            Issue.record("the run ends by writing its cursor and telling its owner: \(r.actions)")
            return
        }
        #expect(r.actions.suffix(2).first.map { if case .removeAllDownloads = $0 { true } else { false } } == true)
        #expect(saved == finished.cursor && saved.lastLine == "a.zip" && saved.lastSuccess == r.now + 60)
        #expect(r.savedCursors.count == 1)
        #expect(finished.report.outcome == .succeeded && finished.report.finishedAt == r.now + 60)
        #expect((r.report.listed, r.report.new, r.report.processed, r.report.keys, r.report.newExposures) == (1, 1, 1, 10, 1))
        #expect((r.report.startedAt, r.report.bytes, r.report.matchSlices) == (r.now, 1_000, 2))
        #expect((r.report.downloadTime, r.report.verifyTime, r.report.matchTime)
                == (.seconds(2), .milliseconds(2), .milliseconds(5)))
    }

    /// Mirrors theCursorIsWrittenOncePerSync and the third run of httpSyncTakesNewLinesOnly…: only lines after
    /// the cursor are fetched, and the cursor is written once however many files the run processed.
    @Test func onlyLinesAfterTheCursorAreFetchedAndTheCursorIsWrittenOnce() {
        var cursor = SyncCursor(server: Rehearsal.index.identity)
        cursor.lastLine = "b.zip"
        var r = Rehearsal(listing: "a.zip\nb.zip\nc.zip\nd.zip\ne.zip\n", cursor: cursor)
        r.run()
        #expect(r.requests == ["http://keys.test/index.txt"] + ["c.zip", "d.zip", "e.zip"].map { Self.base + $0 })
        #expect((r.report.listed, r.report.new, r.report.processed) == (5, 3, 3))
        #expect(r.savedCursors.map(\.lastLine) == ["e.zip"])

        var nothingNew = Rehearsal(listing: "a.zip\nb.zip\n", cursor: cursor)
        nothingNew.run()
        #expect(nothingNew.requests == ["http://keys.test/index.txt"] && nothingNew.outcome == .succeeded)
        #expect(nothingNew.savedCursors.count == 1 && nothingNew.savedCursors[0].lastSuccess != nil)
    }

    /// Mirrors the cursorLost case of cursorTakesOnlyLinesAfterTheLastProcessed, as a run says it.
    @Test func anIndexThatNoLongerListsTheCursorIsTakenWholeAndSaysSo() {
        var cursor = SyncCursor(server: Rehearsal.index.identity)
        cursor.lastLine = "aged-out.zip"
        var r = Rehearsal(listing: "x.zip\ny.zip\n", cursor: cursor)
        r.run()
        #expect(r.logs.contains("info: key sync: the index no longer lists the last processed line; taking all 2 lines"))
        #expect(r.report.processed == 2 && r.cursor.lastLine == "y.zip")
    }

    /// Mirrors httpSyncTakesNewLinesOnly… (a file dropped twice) and the second run of
    /// droppedConnectionsBeyondTheRetries…: network errors and 5xx are retried with exponential backoff.
    @Test func aFailureWorthRetryingIsRetriedWithBackoffAndThenComesThrough() {
        var r = Rehearsal(listing: "a.zip\nb.zip\n")
        r.failures["b.zip"] = [.transport("connection reset"), .httpStatus(503), .httpStatus(429)]
        r.run()
        #expect(r.outcome == .succeeded && r.report.processed == 2 && r.report.retries == 3)
        #expect(r.retryDelays == [.seconds(15), .seconds(30), .seconds(60)], "15 s doubled, jitter 1")
        #expect(r.jitterDraws == 3)
        #expect(r.requests.filter { $0.hasSuffix("b.zip") }.count == 4)
        #expect(r.phases.contains(.retrying(attempt: 2, of: 4)) && r.phases.contains(.retrying(attempt: 4, of: 4)))
        #expect(r.logs.contains("info: key sync: HTTP status 503; attempt 3 of 4 in 30 s"))
        // Each attempt and each wait counts as download time: 6 attempts of 1 s, and 105 s of waiting.
        #expect(r.report.downloadTime == .seconds(6 + 105))
        // Every attempt after the first downloads again into the entry's one file.
        #expect(r.actions.compactMap { if case .download(let e, _, _, let n) = $0, e == "b.zip" { n } else { nil } } == [1, 2, 3, 4])
        #expect(r.removedDownloads == 0)
    }

    /// Mirrors retriesBackOffExponentiallyWithinACap at the run's level: the jitter is drawn only for a retry
    /// that is scheduled (the agent's random stream is shared with its sync schedule).
    @Test func jitterIsDrawnOnlyForARetryThatIsScheduledAndScalesItsDelay() {
        var r = Rehearsal(listing: "gone.zip\nbusy.zip\n", retry: RetryPolicy(attempts: 2, firstDelay: .seconds(10),
                                                                              maximumDelay: .seconds(600)))
        r.jitter = 1.5
        r.failures["gone.zip"] = [.httpStatus(404)]
        r.failingForEver["busy.zip"] = .httpStatus(500)
        r.run()
        #expect(r.jitterDraws == 1, "none for the 404, one for busy.zip's first failure, none for its last")
        #expect(r.retryDelays == [.seconds(15)])
    }

    /// Mirrors goneAndOversizedFilesAreSkipped and aRedirectToALocalFileOrAnotherPortIsRefused…: what will not
    /// come, or must not, is skipped at once, said once, and the cursor moves past it.
    @Test func goneRefusedByALimitOrRedirectedAwayIsSkippedAtOnce() {
        let skipped: [(String, HTTPClient.Failure, String)] = [
            ("gone.zip", .httpStatus(404), "HTTP status 404"),
            ("deleted.zip", .httpStatus(410), "HTTP status 410"),
            ("big.zip", .tooLarge(limit: 65_536), "response larger than 65536 bytes, aborted (sync.max_file_bytes)"),
            ("local.zip", .redirectRefused(to: "file:///etc/passwd"), "redirect to file:///etc/passwd refused"),
            ("loop.zip", .tooManyRedirects(limit: 5), "more than 5 redirects (sync.max_redirects)"),
            ("odd.zip", .badURL("no scheme"), "unusable URL: no scheme"),
        ]
        var r = Rehearsal(listing: (skipped.map(\.0) + ["good.zip"]).joined(separator: "\n"))
        for (entry, failure, _) in skipped { r.failingForEver[entry] = failure }
        r.run()
        #expect(r.outcome == .succeeded)
        #expect((r.report.skipped, r.report.processed, r.report.retries) == (6, 1, 0))
        #expect(r.jitterDraws == 0 && r.retryDelays.isEmpty)
        #expect(r.removedDownloads == 6, "each skipped entry's file goes at once")
        for (entry, _, reason) in skipped {
            #expect(r.logs.filter { $0.contains("skipping \(entry): \(reason)") }.count == 1, "\(entry)")
        }
        #expect(r.report.refusals.count == 6 && r.report.refusals[0] == "gone.zip: skipped, HTTP status 404")
        #expect(r.cursor.lastLine == "good.zip" && r.matchedBatches == [["good.zip"]])
    }

    /// Mirrors droppedConnectionsBeyondTheRetries… and the first run of anExportFailingRunAfterRun…: retries
    /// used up stop the run; the cursor keeps what came before and remembers the entry.
    @Test func retriesUsedUpStopTheRunWithTheCursorBeforeTheEntry() {
        var r = Rehearsal(listing: "a.zip\nb.zip\nc.zip\n")
        r.failingForEver["b.zip"] = .transport("connection reset")
        r.run()
        #expect(r.outcome == .failed("b.zip: connection reset"))
        #expect(r.report.retries == 3 && r.requests.filter { $0.hasSuffix("b.zip") }.count == 4)
        #expect(!r.requests.contains(Self.base + "c.zip"))
        #expect(r.savedCursors.count == 1)
        #expect(r.cursor.lastLine == "a.zip" && r.cursor.lastSuccess == nil)
        #expect(r.cursor.failing == SyncCursor.Failing(entry: "b.zip", runs: 1))
        #expect(r.removedDownloads == 1 && r.finished?.report.outcome == r.outcome)
    }

    /// Mirrors failuresAreRetriedSkippedOrStopTheRun at the run's level: a download that cannot be written
    /// (a full disk) is the badge's problem, not the entry's: no retry, and it never counts towards giving up.
    @Test func aLocalWriteFailureStopsTheRunWithoutCountingAgainstTheEntry() {
        var r = Rehearsal(listing: "a.zip\n")
        r.failingForEver["a.zip"] = .localWrite("No space left on device")
        r.run()
        #expect(r.outcome == .failed("a.zip: cannot write the download: No space left on device"))
        #expect(r.report.retries == 0 && r.cursor.failing == nil && r.cursor.lastLine == nil)
    }

    /// Mirrors anExportFailingRunAfterRunIsGivenUpAtTheLimit, aWrongContentLengthIsBounded… (limit 2) and
    /// aDrippingServerIsBounded… (limit 1): an entry whose retries run out `sync.give_up_after_runs` runs in a
    /// row is skipped, and the cursor forgets it.
    @Test func anEntryFailingRunAfterRunIsGivenUpAtTheLimit() {
        var cursor = SyncCursor(server: Rehearsal.index.identity)
        var outcomes: [SyncReport.Outcome] = []
        for run in 1...3 {
            var r = Rehearsal(listing: "busy.zip\ngood.zip\n", cursor: cursor,
                              retry: RetryPolicy(attempts: 2, firstDelay: .seconds(1), maximumDelay: .seconds(1)))
            r.failingForEver["busy.zip"] = .httpStatus(503)
            r.run()
            outcomes.append(r.outcome)
            cursor = r.savedCursors[0]
            if run < 3 { #expect(cursor.failing == SyncCursor.Failing(entry: "busy.zip", runs: run)) }
            if run == 3 {
                #expect((r.report.skipped, r.report.processed) == (1, 1))
                #expect(r.logs.contains { $0.contains("skipping busy.zip: given up after 3 sync(s) in a row could not "
                                                      + "download it (sync.give_up_after_runs): HTTP status 503") })
            }
        }
        #expect(outcomes == [.failed("busy.zip: HTTP status 503"), .failed("busy.zip: HTTP status 503"), .succeeded])
        #expect(cursor.failing == nil && cursor.lastLine == "good.zip")

        // With a limit of 1, the first run to use up its retries gives the entry up.
        var limits = KeySyncLimits()
        limits.giveUpAfterRuns = 1
        var once = Rehearsal(listing: "slow.zip\ngood.zip\n", limits: limits,
                             retry: RetryPolicy(attempts: 2, firstDelay: .seconds(1), maximumDelay: .seconds(1)))
        once.failingForEver["slow.zip"] = .transport("Operation too slow")
        once.run()
        #expect((once.outcome, once.report.skipped, once.report.retries) == (.succeeded, 1, 1))
    }

    /// The count is of runs in a row on the same entry: another entry failing starts again from one, and an
    /// entry that comes through is forgotten.
    @Test func theGiveUpCountIsOfOneEntryInARow() {
        var cursor = SyncCursor(server: Rehearsal.index.identity)
        cursor.failing = SyncCursor.Failing(entry: "old.zip", runs: 2)
        var other = Rehearsal(listing: "new.zip\n", cursor: cursor, retry: RetryPolicy(attempts: 1, firstDelay: .seconds(1),
                                                                                      maximumDelay: .seconds(1)))
        other.failingForEver["new.zip"] = .httpStatus(502)
        other.run()
        #expect(other.cursor.failing == SyncCursor.Failing(entry: "new.zip", runs: 1))

        var recovered = Rehearsal(listing: "old.zip\n", cursor: cursor)
        recovered.failures["old.zip"] = [.httpStatus(502)]
        recovered.run()
        #expect(recovered.outcome == .succeeded && recovered.cursor.failing == nil)
    }

    /// Mirrors anExportFailingRunAfterRunIsGivenUpAtTheLimit ("two attempts in each of three runs"): the run that
    /// reaches `sync.give_up_after_runs` still tries the entry with every attempt before giving it up, and an
    /// entry that comes through in that run is processed, not skipped.
    @Test func anEntryOnItsLastRunIsStillTriedWithEveryAttempt() {
        var cursor = SyncCursor(server: Rehearsal.index.identity)
        cursor.failing = SyncCursor.Failing(entry: "busy.zip", runs: KeySyncLimits().giveUpAfterRuns - 1)
        let twoTries = RetryPolicy(attempts: 2, firstDelay: .seconds(1), maximumDelay: .seconds(1))

        var givenUp = Rehearsal(listing: "busy.zip\ngood.zip\n", cursor: cursor, retry: twoTries)
        givenUp.failingForEver["busy.zip"] = .httpStatus(503)
        givenUp.run()
        #expect(givenUp.requests.filter { $0.hasSuffix("busy.zip") }.count == 2, "both attempts, then given up")
        #expect((givenUp.outcome, givenUp.report.skipped, givenUp.report.processed) == (.succeeded, 1, 1))

        var cameThrough = Rehearsal(listing: "busy.zip\ngood.zip\n", cursor: cursor, retry: twoTries)
        cameThrough.failures["busy.zip"] = [.httpStatus(503)]
        cameThrough.run()
        #expect((cameThrough.outcome, cameThrough.report.skipped, cameThrough.report.processed) == (.succeeded, 0, 2))
        #expect(cameThrough.matchedBatches == [["busy.zip"], ["good.zip"]], "its keys are matched")
        #expect(cameThrough.cursor.failing == nil && cameThrough.cursor.lastLine == "good.zip")
    }

    /// Mirrors droppedConnectionsBeyondTheRetriesWaitForTheNextPeriodWithTheCursorKept, whose server fails the
    /// index once and drops b.zip for good: each fetch has attempts of its own, so a retried listing does not
    /// shorten the first download's retries.
    @Test func aRetriedListingLeavesEachDownloadItsOwnAttempts() {
        let twoTries = RetryPolicy(attempts: 2, firstDelay: .seconds(1), maximumDelay: .seconds(1))
        var r = Rehearsal(listing: "b.zip\n", retry: twoTries)
        r.listing = [.failure(.httpStatus(503)), .success(Array("b.zip\n".utf8))]
        r.failingForEver["b.zip"] = .transport("connection reset")
        r.run()
        #expect(r.requests == ["http://keys.test/index.txt", "http://keys.test/index.txt",
                               Self.base + "b.zip", Self.base + "b.zip"])
        #expect(r.actions.compactMap { if case .download(_, _, _, let n) = $0 { n } else { nil } } == [1, 2])
        #expect(r.outcome == .failed("b.zip: connection reset") && r.report.retries == 2)
        #expect(r.cursor.failing == SyncCursor.Failing(entry: "b.zip", runs: 1))
    }

    /// Mirrors goneAndOversizedFilesAreSkipped (sync.max_file_bytes = 65536): the listing and each download ask
    /// the transport for no more than the configured limits, so an export over them is aborted and skipped.
    @Test func eachFetchAsksForNoMoreThanTheConfiguredLimit() throws {
        let configured = try Configuration(parsing: "sync.max_file_bytes = 65536\nsync.max_index_bytes = 2048")
        let limits = KeySyncLimits(configuration: configured)
        var r = Rehearsal(listing: "a.zip\nbig.zip\n", limits: limits)
        r.failingForEver["big.zip"] = .tooLarge(limit: 65_536)
        r.run()
        let asked = r.actions.compactMap { action -> Int? in
            switch action {
            case .fetchListing(_, let maximumBytes), .download(_, _, let maximumBytes, _): maximumBytes
            default: nil
            }
        }
        #expect(asked == [2_048, 65_536, 65_536])
        #expect((r.outcome, r.report.processed, r.report.skipped) == (.succeeded, 1, 1))
    }

    /// Mirrors droppedConnectionsBeyondTheRetries… (--fail /index.txt=1:503) and the listing failure of
    /// aHeldKeyIsMatchedWhenItsEmbargoEnds…: the listing is retried like a file but never skipped.
    @Test func theListingIsRetriedButAnythingElseStopsTheRun() {
        var retried = Rehearsal(listing: "a.zip\n")
        retried.listing = [.failure(.httpStatus(503)), .success(Array("a.zip\n".utf8))]
        retried.run()
        #expect(retried.outcome == .succeeded && retried.report.retries == 1 && retried.retryDelays == [.seconds(15)])
        #expect(retried.requests == ["http://keys.test/index.txt", "http://keys.test/index.txt", Self.base + "a.zip"])

        let stopping: [(HTTPClient.Failure, String)] = [
            (.httpStatus(404), "HTTP status 404"),
            (.tooLarge(limit: 100), "response larger than 100 bytes, aborted (sync.max_index_bytes)"),
            (.tooManyRedirects(limit: 5), "more than 5 redirects (sync.max_redirects)"),
        ]
        for (failure, reason) in stopping {
            var r = Rehearsal(listing: "")
            r.listing = [.failure(failure)]
            r.run()
            #expect(r.outcome == .failed("listing http://keys.test/index.txt: \(reason)"))
            #expect(r.report.retries == 0 && r.savedCursors.count == 1 && r.cursor.lastSuccess == nil)
        }

        var down = Rehearsal(listing: "", retry: RetryPolicy(attempts: 3, firstDelay: .seconds(1), maximumDelay: .seconds(8)))
        down.listing = [.failure(.transport("Connection refused"))]
        down.run()
        #expect(down.outcome == .failed("listing http://keys.test/index.txt: Connection refused"))
        #expect(down.report.retries == 2 && down.cursor.failing == nil, "a listing is never given up")
    }

    /// Mirrors indexLimitsAndMalformedLines and dayListsAreStrict at the run's level.
    @Test func aListingThatCannotBeReadStopsTheRun() {
        var limits = KeySyncLimits()
        limits.maxIndexLines = 2
        var long = Rehearsal(listing: "a\nb\nc\n", limits: limits)
        long.run()
        #expect(long.outcome == .failed("listing http://keys.test/index.txt: index.txt has more than 2 lines "
                                        + "(sync.max_index_lines)"))
        var days = Rehearsal(server: Rehearsal.cwa, listing: "[\"2024-02-30\"]")
        days.run()
        guard case .failed(let reason) = days.outcome else {
            Issue.record("a day list with a day that does not exist: \(days.outcome)")
            return
        }
        #expect(reason.hasPrefix("listing http://keys.test/version/v1/diagnosis-keys/country/DE/date: day list holds "
                                 + "\"2024-02-30\", expected \"YYYY-MM-DD\""), "\(reason)")
        #expect(days.requests.count == 1)
    }

    /// Mirrors aMalformedIndexLineIsSkippedOnceAndTheNextFileMatches: malformed lines are never fetched, each
    /// said once, and passed over in a loop — 20,000 of them in a row answer one event.
    @Test func malformedIndexLinesAreSkippedInALoopWithoutBeingFetched() {
        let bad = (0..<20_000).map { "bad \($0).zip" }
        var limits = KeySyncLimits()
        limits.maxFiles = 30_000
        var r = Rehearsal(listing: (bad + ["good.zip"]).joined(separator: "\n"), limits: limits)
        var machine = r.machine
        _ = machine.start(now: r.now)
        let answer = machine.listingFetched(Array((bad + ["good.zip"]).joined(separator: "\n").utf8), elapsed: .zero)
        #expect(answer.count == 20_000 + 2, "one log line per malformed line, then good.zip's phase and download")
        #expect(answer.last == .download(entry: "good.zip", url: Self.base + "good.zip",
                                         maximumBytes: limits.maxFileBytes, attempt: 1))

        r.run()
        #expect((r.outcome, r.report.skipped, r.report.processed) == (.succeeded, 20_000, 1))
        #expect(r.requests == ["http://keys.test/index.txt", Self.base + "good.zip"])
        #expect(r.report.refusals.count == SyncReport.maxRefusals)
        #expect(r.report.refusals[0] == "bad 0.zip: skipped, malformed index line (a relative path of printable ASCII "
                + "without spaces, a leading '/' or '..' is expected)")
        #expect(r.cursor.lastLine == "good.zip")

        // Malformed lines only: the run ends there, with the cursor past them.
        var onlyBad = Rehearsal(listing: "/etc/passwd\n../up.zip\n")
        onlyBad.run()
        #expect((onlyBad.outcome, onlyBad.report.skipped) == (.succeeded, 2))
        #expect(onlyBad.cursor.lastLine == "../up.zip" && onlyBad.requests.count == 1)
    }

    /// Mirrors aBacklogIsTakenAtMostMaxFilesPerSync: `sync.max_files` entries a run, the rest said to wait.
    @Test func maxFilesDefersTheRestToTheNextRun() {
        var limits = KeySyncLimits()
        limits.maxFiles = 2
        var r = Rehearsal(listing: "0.zip\n1.zip\n2.zip\n3.zip\n4.zip\n", limits: limits)
        r.run()
        #expect((r.report.new, r.report.processed, r.report.deferred) == (5, 2, 3))
        #expect(r.logs.contains("info: key sync: 5 new exports listed; 2 now, 3 in the next sync (sync.max_files)"))
        #expect(r.phases.contains(.downloading(file: 2, of: 2)))
        var next = Rehearsal(listing: "0.zip\n1.zip\n2.zip\n3.zip\n4.zip\n", cursor: r.savedCursors[0], limits: limits)
        next.run()
        #expect(next.requests.dropFirst() == [Self.base + "2.zip", Self.base + "3.zip"])

        var days = Rehearsal(server: Rehearsal.cwa, listing: "[\"2024-03-03\",\"2024-03-01\",\"2024-03-02\"]", limits: limits)
        days.run()
        #expect((days.report.new, days.report.processed, days.report.deferred) == (3, 2, 1))
        #expect(days.cursor.processedDays == ["2024-03-01", "2024-03-02"], "oldest first")
    }

    /// Mirrors coronaWarnAppDaysAreFetchedOnce: a day is fetched once, and forgotten once no longer listed.
    @Test func coronaWarnAppDaysAreTakenOnceAndForgottenWhenNoLongerListed() {
        var cursor = SyncCursor(server: Rehearsal.cwa.identity)
        cursor.processedDays = ["2024-03-01", "2024-03-02"]
        var r = Rehearsal(server: Rehearsal.cwa, listing: "[\"2024-03-02\",\"2024-03-03\"]", cursor: cursor)
        r.run()
        #expect(r.requests == ["http://keys.test/version/v1/diagnosis-keys/country/DE/date",
                               "http://keys.test/version/v1/diagnosis-keys/country/DE/date/2024-03-03"])
        #expect(r.actions.contains(.fetchListing(url: "http://keys.test/version/v1/diagnosis-keys/country/DE/date",
                                                 maximumBytes: KeySyncLimits.maxDayListBytes)))
        #expect(r.cursor.processedDays == ["2024-03-02", "2024-03-03"])
    }

    /// Mirrors multiFileBatchCountsOnlyOnceComplete and downloadsArePrivateTemporaryAndCleanedAtStart: a batch
    /// is matched whole once its last file arrives, in batch order, and the cursor waits for it.
    @Test func aBatchIsMatchedOnceCompleteAndTheCursorWaitsUntilNoBatchDoes() {
        var r = Rehearsal(listing: "b2.zip\nsingle.zip\nb1.zip\n")
        r.batches = ["b2.zip": Rehearsal.batch(2, of: 2, id: "b"), "b1.zip": Rehearsal.batch(1, of: 2, id: "b")]
        var machine = r.machine
        _ = machine.start(now: r.now)
        _ = machine.listingFetched(Array("b2.zip\nsingle.zip\nb1.zip\n".utf8), elapsed: .zero)
        _ = machine.downloaded(bytes: 1, elapsed: .zero)
        let waiting = machine.verified("b2.zip", at: r.batches["b2.zip"]!, elapsed: .zero)
        #expect(waiting.first == .log(.debug, "key sync: b2.zip is file 2 of 2 of its batch (1 here)"))
        #expect(waiting.last == .download(entry: "single.zip", url: Self.base + "single.zip",
                                          maximumBytes: KeySyncLimits().maxFileBytes, attempt: 1))
        #expect(machine.report.processed == 1 && machine.cursor.lastLine == nil, "the cursor waits for the batch")
        _ = machine.downloaded(bytes: 1, elapsed: .zero)
        let single = machine.verified("single.zip", at: Rehearsal.batch(1, of: 1, id: "s"), elapsed: .zero)
        #expect(single.contains(.matchBatch(["single.zip"])))
        _ = machine.matched(.init())
        _ = machine.recorded(newExposures: 0)
        #expect(machine.cursor.lastLine == nil, "a later file is done, but a batch before it still waits")

        r.run()
        #expect(r.matchedBatches == [["single.zip"], ["b1.zip", "b2.zip"]], "in batch order")
        #expect(r.discarded == ["single.zip", "b1.zip", "b2.zip"])
        #expect(r.report.processed == 3 && r.cursor.lastLine == "b1.zip")
    }

    /// Mirrors the first run of multiFileBatchCountsOnlyOnceComplete: a batch still incomplete when the run
    /// ends is said and ignored, and the cursor moves past its files.
    @Test func aBatchIncompleteAtTheEndIsIgnoredAndTheCursorMovesPastIt() {
        var r = Rehearsal(listing: "half.zip\n")
        r.batches = ["half.zip": Rehearsal.batch(1, of: 2, id: "b")]
        r.run()
        #expect(r.outcome == .succeeded && r.matchedBatches.isEmpty && r.report.keys == 0)
        #expect(r.logs.contains { $0.hasPrefix("warn: key sync: batch b 0-1 (2 files) incomplete with 1 file(s)") })
        #expect(r.cursor.lastLine == "half.zip")
    }

    /// A run that stops while a batch waits keeps the cursor before the batch's first file: the next run reads
    /// the batch again, whole.
    @Test func aRunStoppingWhileABatchWaitsKeepsTheCursorBeforeIt() {
        var r = Rehearsal(listing: "first.zip\nhalf.zip\nbroken.zip\n")
        r.batches = ["half.zip": Rehearsal.batch(1, of: 2, id: "b")]
        r.failingForEver["broken.zip"] = .localWrite("disk full")
        r.run()
        #expect(r.outcome == .failed("broken.zip: cannot write the download: disk full"))
        #expect(r.cursor.lastLine == "first.zip" && r.savedCursors.map(\.lastLine) == ["first.zip"])
        #expect(!r.logs.contains { $0.contains("incomplete") }, "only a run that went through says so")
    }

    @Test func aFileRepeatingOneOfABatchIsDiscardedAndCounted() {
        var r = Rehearsal(listing: "b1.zip\nb1-again.zip\nb2.zip\n")
        r.batches = ["b1.zip": Rehearsal.batch(1, of: 2, id: "b"), "b1-again.zip": Rehearsal.batch(1, of: 2, id: "b"),
                     "b2.zip": Rehearsal.batch(2, of: 2, id: "b")]
        r.run()
        #expect(r.logs.contains("info: key sync: b1-again.zip repeats file 1 of a batch already held; ignored"))
        #expect(r.matchedBatches == [["b1.zip", "b2.zip"]], "the first one is kept")
        #expect(r.discarded == ["b1-again.zip", "b1.zip", "b2.zip"])
        #expect(r.report.processed == 3 && r.cursor.lastLine == "b2.zip")
    }

    /// Mirrors httpSyncTakesNewLinesOnly… (a forged file) and aWrongContentLengthIsBounded… (a cut file): a
    /// download that is not a valid export signed by the configured key is rejected and the run goes on; one
    /// that cannot be read back stops it.
    @Test func aRefusedExportIsRejectedAndAnUnreadableOneStopsTheRun() {
        var r = Rehearsal(listing: "forged.zip\ngood.zip\n")
        r.refusals["forged.zip"] = .export(.missingSignatureFile)
        r.run()
        #expect((r.outcome, r.report.rejected, r.report.processed) == (.succeeded, 1, 1))
        #expect(r.removedDownloads == 1 && r.matchedBatches == [["good.zip"]] && r.cursor.lastLine == "good.zip")
        #expect(r.report.refusals.first?.hasPrefix("forged.zip: rejected, ") == true)
        #expect(r.logs.contains { $0.hasPrefix("warn: key sync: rejected forged.zip: ") })

        var unreadable = Rehearsal(listing: "a.zip\nb.zip\n")
        unreadable.refusals["a.zip"] = .read("Input/output error")
        unreadable.run()
        #expect(unreadable.outcome == .failed("a.zip: \(ExportFileError.read("Input/output error"))"))
        #expect(unreadable.report.rejected == 0 && unreadable.cursor.lastLine == nil && unreadable.requests.count == 2)
    }

    @Test func corruptFilesOfABatchAreDroppedAndSaid() {
        var r = Rehearsal(listing: "a.zip\n")
        r.corruptFiles = ["a.zip (file 1 of 1): truncated"]
        r.run()
        #expect(r.logs.contains("warn: key sync: dropped corrupt export a.zip (file 1 of 1): truncated"))
        #expect(r.report.refusals == ["dropped corrupt export a.zip (file 1 of 1): truncated"])
        #expect(r.outcome == .succeeded && r.cursor.lastLine == "a.zip")
    }

    /// The driver could not record exposures, store a download, or read the sightings: the run stops there, the
    /// cursor not past the entry.
    @Test func aLocalFailureStopsTheRunBeforeTheCursorMoves() {
        var r = Rehearsal(listing: "a.zip\nb.zip\n")
        r.recordingFails = "cannot record exposures: disk full"
        r.run()
        #expect(r.outcome == .failed("cannot record exposures: disk full"))
        #expect(r.cursor.lastLine == nil && r.requests.count == 2 && r.savedCursors.count == 1)
    }

    /// Mirrors aKeyUnderEmbargoWhenReadIsMatchedByTheFirstSyncAfterItsEnd: held keys whose embargo has ended
    /// are matched first, before the listing; the rest stay held.
    @Test func heldKeysWhoseEmbargoEndedAreMatchedBeforeTheListing() {
        let due = Rehearsal.key(1, rollingStart: Self.currentInterval - 300)
        let notYet = Rehearsal.key(2, rollingStart: Self.currentInterval - 100)
        var cursor = SyncCursor(server: Rehearsal.index.identity)
        cursor.heldKeys = [due, notYet]
        var r = Rehearsal(listing: "", cursor: cursor)
        var machine = r.machine
        #expect(machine.start(now: r.now) == [.phase(.matchingHeldKeys), .matchHeldKeys([due])])
        #expect(machine.cursor.heldKeys == [due, notYet], "held until their exposures are recorded")
        #expect(machine.matched(.init(keys: 1, slices: 1)) == [.recordExposures])
        let next = machine.recorded(newExposures: 1)
        #expect(next.first == .log(.info, "key sync: matched 1 key(s) held until their embargo ended"))
        #expect(next.dropFirst() == [.phase(.listing), .fetchListing(url: "http://keys.test/index.txt",
                                                                     maximumBytes: KeySyncLimits().maxIndexBytes)])
        #expect(machine.cursor.heldKeys == [notYet])

        r.run()
        #expect((r.outcome, r.report.releasedKeys, r.report.newExposures) == (.succeeded, 1, 1))
        #expect(r.matchedHeldKeys == [[due]] && r.savedCursors[0].heldKeys == [notYet])

        // None due: straight to the listing.
        cursor.heldKeys = [notYet]
        var early = Rehearsal(listing: "", cursor: cursor)
        early.run()
        #expect(early.matchedHeldKeys.isEmpty && early.report.releasedKeys == 0 && early.phases.first == .listing)
    }

    /// Mirrors aHeldKeyIsMatchedWhenItsEmbargoEndsEvenWithTheKeyServerDown: the held keys are matched, and
    /// leave the cursor, even when the listing then fails.
    @Test func heldKeysAreMatchedEvenWhenTheListingFails() {
        let due = Rehearsal.key(1, rollingStart: Self.currentInterval - 300)
        var cursor = SyncCursor(server: Rehearsal.index.identity)
        cursor.heldKeys = [due]
        var r = Rehearsal(listing: "", cursor: cursor, retry: RetryPolicy(attempts: 1, firstDelay: .seconds(1),
                                                                         maximumDelay: .seconds(1)))
        r.listing = [.failure(.transport("Connection refused"))]
        r.run()
        #expect(r.outcome == .failed("listing http://keys.test/index.txt: Connection refused"))
        #expect((r.report.releasedKeys, r.report.newExposures) == (1, 1))
        #expect(r.phases.prefix(2) == [.matchingHeldKeys, .listing])
        #expect(r.savedCursors.count == 1 && r.savedCursors[0].heldKeys.isEmpty)
    }

    /// Held keys whose exposures could not be recorded stay held, for the next run.
    @Test func heldKeysStayHeldWhenTheirExposuresCannotBeRecorded() {
        let due = Rehearsal.key(1, rollingStart: Self.currentInterval - 300)
        var cursor = SyncCursor(server: Rehearsal.index.identity)
        cursor.heldKeys = [due]
        var r = Rehearsal(listing: "a.zip\n", cursor: cursor)
        r.recordingFails = "cannot record exposures: disk full"
        r.run()
        #expect(r.outcome == .failed("cannot record exposures: disk full"))
        #expect(r.requests.isEmpty && r.report.releasedKeys == 0)
        #expect(r.savedCursors[0].heldKeys == [due])
    }

    /// Mirrors the first run of aKeyUnderEmbargoWhenReadIsMatchedByTheFirstSyncAfterItsEnd: the keys the
    /// detection set aside under embargo are held in the cursor as it is written, once, and counted.
    @Test func keysUnderEmbargoAreHeldInTheCursorAsItIsWritten() {
        let already = Rehearsal.key(1, rollingStart: Self.currentInterval - 100)
        let new = Rehearsal.key(2, rollingStart: Self.currentInterval - 90)
        var cursor = SyncCursor(server: Rehearsal.index.identity)
        cursor.heldKeys = [already]
        var r = Rehearsal(listing: "today.zip\n", cursor: cursor)
        var counts = EmbargoCounts()
        counts.held = 2
        counts.overCapacity = 3
        counts.notValidYet = 4
        r.embargo = .init(counts: counts, keys: [already, new])
        r.run()
        #expect(r.savedCursors.count == 1 && r.savedCursors[0].heldKeys == [already, new], "one entry per key")
        #expect((r.report.heldKeys, r.report.droppedHeldKeys, r.report.notValidYetKeys) == (1, 3, 4))
        #expect(r.logs.contains("warn: key sync: 4 key(s) not valid yet, ignored"))
        #expect(r.logs.contains("warn: key sync: 3 key(s) under embargo not held: at most 10000 are"))
        #expect(r.logs.contains("info: key sync: 1 key(s) under embargo held for a later sync"))
        #expect(r.finished?.cursor.heldKeys == [already, new])

        // Held even when the run fails after the file was read: the cursor is not past it, and the key is held
        // once more when the file is read again.
        var failed = Rehearsal(listing: "today.zip\nbroken.zip\n")
        failed.failingForEver["broken.zip"] = .localWrite("disk full")
        failed.embargo = .init(counts: counts, keys: [new])
        failed.run()
        #expect(failed.savedCursors[0].heldKeys == [new] && failed.report.heldKeys == 1)
    }

    /// Mirrors syncNowAnswersWhenTheDownloadIsDone… (a run cancelled by reconfiguration): cancel ends the run
    /// at once; the cursor keeps what was processed and is written, the owner is not told, and whatever the
    /// driver's jobs still report is ignored.
    @Test func cancelWritesTheCursorOnceTellsNoOneAndIgnoresLateEvents() {
        let r = Rehearsal(listing: "")
        var machine = r.machine
        _ = machine.start(now: r.now)
        _ = machine.listingFetched(Array("a.zip\nb.zip\n".utf8), elapsed: .zero)
        _ = machine.downloaded(bytes: 10, elapsed: .zero)
        _ = machine.verified("a.zip", at: Rehearsal.batch(1, of: 1, id: "a"), elapsed: .zero)
        _ = machine.matched(.init())
        _ = machine.recorded(newExposures: 0)
        #expect(!machine.isOver)
        #expect(machine.cancel() == [.end])
        #expect(machine.isOver)
        #expect(machine.downloaded(bytes: 10, elapsed: .zero).isEmpty, "a late completion changes nothing")
        #expect(machine.fetchFailed(.httpStatus(500), elapsed: .zero, jitter: 1).isEmpty)
        #expect(machine.retryTimerFired().isEmpty && machine.cancel().isEmpty && machine.stopped("late").isEmpty)
        var expectedCursor = SyncCursor(server: Rehearsal.index.identity)
        expectedCursor.lastLine = "a.zip"
        #expect(machine.close(embargo: nil, now: r.now) == [.saveCursor(expectedCursor), .removeAllDownloads])
        #expect(machine.report.outcome == .cancelled && machine.report.finishedAt == nil)
        #expect(machine.close(embargo: nil, now: r.now).isEmpty, "the cursor is written once")

        // Cancelled while waiting to retry: the timer's event, should it come, is ignored too.
        var waiting = Rehearsal.Machine(server: Rehearsal.index, cursor: SyncCursor(server: Rehearsal.index.identity),
                                        limits: KeySyncLimits(), retry: RetryPolicy())
        _ = waiting.start(now: r.now)
        #expect(waiting.fetchFailed(.httpStatus(503), elapsed: .zero, jitter: 1).last == .scheduleRetry(after: .seconds(15)))
        #expect(waiting.cancel() == [.end] && waiting.retryTimerFired().isEmpty)
    }

    /// Each event is taken only in the stage that expects it: a driver's stray call cannot skip a rule.
    @Test func eventsOutOfTurnAreIgnored() {
        var machine = Rehearsal.Machine(server: Rehearsal.index, cursor: SyncCursor(server: Rehearsal.index.identity),
                                        limits: KeySyncLimits(), retry: RetryPolicy())
        #expect(machine.listingFetched(Array("a.zip\n".utf8), elapsed: .zero).isEmpty, "not started")
        #expect(machine.close(embargo: nil, now: 0).isEmpty, "not ending")
        _ = machine.start(now: 1)
        #expect(machine.downloaded(bytes: 1, elapsed: .zero).isEmpty, "the listing is awaited, not a file")
        #expect(machine.verified("x", at: Rehearsal.batch(1, of: 1, id: "x"), elapsed: .zero).isEmpty)
        #expect(machine.matched(.init()).isEmpty && machine.recorded(newExposures: 1).isEmpty)
        #expect(machine.start(now: 2).isEmpty, "started once")
        #expect(machine.report.startedAt == 1 && machine.report.newExposures == 0 && !machine.isOver)
    }
}
