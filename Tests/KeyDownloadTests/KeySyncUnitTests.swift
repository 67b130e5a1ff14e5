@testable import AgentBase
import ENCore
@testable import KeyDownload
import Testing
import TestSupport

/// The pure parts of key sync: listings, the cursor, retries, server URLs.
@Suite struct KeySyncUnitTests {
    /// The lines of an index after `lastLine`, as a run sees them.
    static func lines(_ text: String, after lastLine: String? = nil, limits: KeySyncLimits = KeySyncLimits())
        throws -> KeyServerListing.Index {
        try KeyServerListing.index(Array(text.utf8), after: lastLine, limits: limits)
    }

    @Test func indexLinesAreTrimmedAndNothingElseIsAssumed() throws {
        let index = try Self.lines("v1/1600000000-1600086400-00001.zip\r\n\n  exports/b  \nno-suffix\n")
        #expect(index.pending.map(\.name) == ["v1/1600000000-1600086400-00001.zip", "exports/b", "no-suffix"])
        #expect(index.pending.allSatisfy { $0.problem == nil })
        #expect(index.lineCount == 3 && index.deferred == 0 && !index.cursorLost)
        #expect(try Self.lines("").pending.isEmpty)
    }

    @Test func cursorTakesOnlyLinesAfterTheLastProcessed() throws {
        var cursor = SyncCursor(server: "s")
        let lines = "a\nb\nc\n"
        #expect(try Self.lines(lines, after: cursor.lastLine).pending.map(\.name) == ["a", "b", "c"])
        cursor.commit(["a", "b"], indexed: true, listed: [])
        #expect(cursor.lastLine == "b")
        #expect(try Self.lines(lines + "d\n", after: cursor.lastLine).pending.map(\.name) == ["c", "d"])
        #expect(try Self.lines(lines, after: cursor.lastLine).pending.map(\.name) == ["c"])
        cursor.commit(["c"], indexed: true, listed: [])
        #expect(try Self.lines(lines, after: cursor.lastLine).pending.isEmpty)
        // The server aged "c" out and started afresh: take everything, and say so.
        let restarted = try Self.lines("x\ny\n", after: cursor.lastLine)
        #expect(restarted.pending.map(\.name) == ["x", "y"] && restarted.cursorLost)
        // A line listed twice: the cursor means its last appearance.
        #expect(try Self.lines("a\nb\na\nz\n", after: "a").pending.map(\.name) == ["z"])
    }

    /// Issue 12, finding 1: an index is bounded in lines, a line in bytes, a run in files; a line that is not
    /// a relative path is skipped rather than fetched (or retried for ever).
    @Test func indexLimitsAndMalformedLines() throws {
        var limits = KeySyncLimits()
        limits.maxIndexLines = 3
        limits.maxLineBytes = 20
        limits.maxFiles = 2
        #expect(throws: KeyServerListing.ListingError.self) { try Self.lines("a\nb\nc\nd\n", limits: limits) }
        let index = try Self.lines("ok.zip\n\(String(repeating: "x", count: 30))\n../../etc/passwd\n", limits: limits)
        #expect(index.lineCount == 3 && index.pending.count == 2 && index.deferred == 1)
        #expect(index.pending[0] == KeyServerListing.Entry(name: "ok.zip"))
        #expect(index.pending[1].name == String(repeating: "x", count: 20), "the cursor keeps the first 20 bytes")
        #expect(index.pending[1].problem?.contains("longer than the 20 allowed") == true)
        limits.maxFiles = 10
        for bad in ["../../etc/passwd", "/etc/passwd", "a b.zip", "x\u{01}.zip", "caf\u{E9}.zip"] {
            let entry = try Self.lines("\(bad)\n", limits: limits).pending[0]
            #expect(entry.problem?.hasPrefix("malformed index line") == true, "\(bad)")
        }
        #expect(try Self.lines("v1/..x/y.zip\n", limits: limits).pending[0].problem == nil)
    }

    /// Found by Tools/fuzz (target index): a line with bytes that are not UTF-8 is recorded in the cursor with
    /// U+FFFD in their place, and the next sync, not finding that text, started over from the first line.
    @Test func cursorFindsALineThatIsNotUTF8() throws {
        let body: [UInt8] = Array("a.zip\n".utf8) + [0x5B, 0x5B, 0xA3, 0xA3, 0x5D] + Array("\nb.zip\n".utf8)
        let first = try KeyServerListing.index(body, after: nil, limits: KeySyncLimits())
        #expect(first.pending.count == 3 && first.pending[1].problem != nil)
        var cursor = SyncCursor(server: "s")
        cursor.commit(first.pending.prefix(2).map(\.name), indexed: true, listed: [])
        let saved = try #require(SyncCursor(text: cursor.text))
        let next = try KeyServerListing.index(body, after: saved.lastLine, limits: KeySyncLimits())
        #expect(!next.cursorLost)
        #expect(next.pending.map(\.name) == ["b.zip"])
    }

    /// Found by Tools/fuzz (target index): an index line cut at sync.max_line_bytes right after a CR is recorded
    /// ending in CR; the cursor file joined that CR and its line end into one character, so the line swallowed
    /// the next one and the next sync started over.
    @Test func cursorFileKeepsALineCutAfterACarriageReturn() throws {
        var limits = KeySyncLimits()
        limits.maxLineBytes = 16
        let body = Array("exports/key.zip\rX\nnext.zip\n".utf8)
        let first = try KeyServerListing.index(body, after: nil, limits: limits)
        #expect(first.pending[0].name == "exports/key.zip\r")
        var cursor = SyncCursor(server: "s")
        cursor.commit([first.pending[0].name], indexed: true, listed: [])
        cursor.lastSuccess = 1_700_000_000
        let saved = try #require(SyncCursor(text: cursor.text))
        #expect(saved == cursor)
        let next = try KeyServerListing.index(body, after: saved.lastLine, limits: limits)
        #expect(!next.cursorLost && next.pending.map(\.name) == ["next.zip"])
    }

    /// Found by Tools/fuzz (target index): an index line starting with a combining mark (U+0365) was recorded
    /// after "last_line " in the cursor file, where the space and the mark make one character, so the line was
    /// not read back and the next sync started over.
    @Test func cursorFileKeepsALineStartingWithACombiningMark() throws {
        let body: [UInt8] = [0xCD, 0xA5, 0xDD, 0xCD, 0xCF] + Array("22-02-0\nnext.zip\n".utf8)
        let first = try KeyServerListing.index(body, after: nil, limits: KeySyncLimits())
        var cursor = SyncCursor(server: "s")
        cursor.commit([first.pending[0].name], indexed: true, listed: [])
        cursor.failing = SyncCursor.Failing(entry: "\u{301}slow.zip", runs: 2)
        let saved = try #require(SyncCursor(text: cursor.text))
        #expect(saved == cursor)
        let next = try KeyServerListing.index(body, after: saved.lastLine, limits: KeySyncLimits())
        #expect(!next.cursorLost && next.pending.map(\.name) == ["next.zip"])
    }

    @Test func cursorRemembersDaysWhileListed() {
        var cursor = SyncCursor(server: "s")
        cursor.commit(["2026-11-01", "2026-11-02"], indexed: false, listed: ["2026-11-01", "2026-11-02"])
        #expect(cursor.pendingDays(in: ["2026-11-01", "2026-11-02", "2026-11-03"]) == ["2026-11-03"])
        cursor.commit(["2026-11-03"], indexed: false, listed: ["2026-11-02", "2026-11-03"])
        #expect(cursor.processedDays == ["2026-11-02", "2026-11-03"])
    }

    @Test func cursorFileRoundTripsAndBelongsToOneServer() throws {
        let folder = TemporaryDirectory()
        var cursor = SyncCursor(server: "index https://k/index.txt https://k/")
        cursor.lastLine = "v1/with space.zip"
        cursor.processedDays = ["2026-11-02"]
        cursor.lastSuccess = 1_700_000_000
        cursor.failing = SyncCursor.Failing(entry: "v1/slow file.zip", runs: 2)
        try cursor.save(dataDirectory: folder.path)
        #expect(SyncCursor.load(dataDirectory: folder.path, server: cursor.server) == cursor)
        #expect(SyncCursor.load(dataDirectory: folder.path, server: "cwa https://other DE") == SyncCursor(server: "cwa https://other DE"))
        #expect(SyncCursor(text: "garbage\n") == nil)
    }

    /// Pure (no file): a cursor is restored only for the server it was made with; another server's, a damaged
    /// one or none starts a fresh cursor that keeps the file name it will be saved under. Pins the rule
    /// `KeyServersTests.twoServersSyncEachWithItsCursorAndAKeyInBothFeedsMatchesOnce` checks on disk.
    @Test func aCursorIsRestoredOnlyForItsOwnServer() {
        var cursor = SyncCursor(server: "index https://national/index.txt https://national/")
        cursor.lastLine = "v1/2026-11-26.zip"
        cursor.lastSuccess = 1_800_000_000
        let file = SyncCursor.fileName(forServer: "eur")
        var expected = cursor
        expected.fileName = file
        #expect(SyncCursor.restored(from: cursor.text, fileName: file, server: cursor.server) == expected)
        let other = "index https://eur/index.txt https://eur/"
        #expect(SyncCursor.restored(from: cursor.text, fileName: file, server: other) == SyncCursor(server: other, fileName: file))
        #expect(SyncCursor.restored(from: "garbage\n", server: other) == SyncCursor(server: other))
        #expect(SyncCursor.restored(from: nil, server: other) == SyncCursor(server: other))
    }

    /// Mirrors twoServersSyncEachWithItsCursorAndAKeyInBothFeedsMatchesOnce (keysync and keysync.eur): each key
    /// server keeps its cursor in a file of its own, and the default server keeps the file a badge of one
    /// server always had.
    @Test func eachKeyServerHasACursorFileOfItsOwn() {
        let names: [String?] = [nil, "eur", "eur-2", "e", "keysync"]
        let files = names.map { SyncCursor.fileName(forServer: $0) }
        #expect(Set(files).count == names.count, "\(files)")
        #expect(SyncCursor.fileName(forServer: nil) == SyncCursor(server: "s").fileName)
    }

    /// Keys under embargo survive a restart in the cursor, one per key, and leave it once their embargo ends.
    @Test func cursorHoldsKeysUnderEmbargoUntilTheyAreDue() throws {
        let day = ENIntervalNumber(2_930_000 / 144 * 144)
        let key = { (byte: UInt8, start: ENIntervalNumber, period: UInt32, onset: Int?) in
            DiagnosisKey(tek: TemporaryExposureKey(keyData: Bytes16([UInt8](repeating: byte, count: 16))!, rollingStart: start,
                                                   rollingPeriod: period),
                         transmissionRiskLevel: 6, reportType: .selfReport, daysSinceOnsetOfSymptoms: onset)
        }
        let a = key(1, day, 144, -3), b = key(2, day.advanced(by: 100)!, 20, nil)
        var cursor = SyncCursor(server: "s")
        #expect(cursor.hold([b, a]) == 0)
        var revised = a
        revised.reportType = .confirmedTest
        #expect(cursor.hold([revised]) == 0, "one entry per key: the later report replaces the earlier")
        #expect(cursor.heldKeys.count == 2 && cursor.heldKeys.contains(revised) && cursor.heldKeys.contains(b))
        #expect(cursor.text.contains("held 01010101010101010101010101010101 \(day.value) 144 6 1 -3\n"))

        // Read back; lines a damaged file may hold are passed over.
        let damaged = cursor.text + ["held 0101 1 1 1 1 -", "held \(String(repeating: "03", count: 16)) 5 0 1 1 -",
                                     "held \(String(repeating: "04", count: 16)) 5 10 1 5 -",
                                     "held \(String(repeating: "05", count: 16)) 5 10 1 1"].joined(separator: "\n")
        var restarted = try #require(SyncCursor(text: damaged))
        #expect(restarted == cursor)

        // b's embargo ends 2 hours after interval 120 of the day; a's, 2 hours after the day.
        let bDue = (Int64(day.value) + 120 + 12) * 600
        #expect(restarted.releaseHeldKeys(at: bDue - 1).isEmpty)
        #expect(restarted.releaseHeldKeys(at: bDue) == [b])
        #expect(restarted.heldKeys == [revised])
        #expect(!restarted.text.contains("held 0202"))

        var full = SyncCursor(server: "s")
        let many = (0..<SyncCursor.maxHeldKeys + 5).map { i in
            DiagnosisKey(tek: TemporaryExposureKey(keyData: Bytes16((0..<16).map { UInt8(truncatingIfNeeded: i >> ($0 % 4 * 8)) &+ UInt8($0) })!,
                                                   rollingStart: day))
        }
        #expect(full.hold(many) == 5, "a server that floods the badge with keys of the future cannot grow the file")
        #expect(full.heldKeys.count == SyncCursor.maxHeldKeys)
    }

    @Test func dayListsAreStrict() throws {
        #expect(try KeyServerListing.days(Array("[\"2026-11-02\",\"2026-11-01\"]".utf8)) == ["2026-11-01", "2026-11-02"])
        for bad in ["{}", "[\"2026-02-30\"]", "[\"../../etc\"]", "[1]", "not json"] {
            #expect(throws: KeyServerListing.ListingError.self) { try KeyServerListing.days(Array(bad.utf8)) }
        }
    }

    @Test func serverURLs() {
        let google = KeyServer.indexed(indexURL: "https://k.example/v1/index.txt", baseURL: "https://k.example/")
        #expect(google.listingURL == "https://k.example/v1/index.txt")
        #expect(google.exportURL(for: "v1/1-2-00001.zip") == "https://k.example/v1/1-2-00001.zip")
        let cwa = KeyServer.cwa(baseURL: "https://svc90.example/", country: "DE")
        #expect(cwa.listingURL == "https://svc90.example/version/v1/diagnosis-keys/country/DE/date")
        #expect(cwa.exportURL(for: "2026-11-02") == "https://svc90.example/version/v1/diagnosis-keys/country/DE/date/2026-11-02")
        #expect(KeyServer.folder(of: "https://k.example/v1/index.txt") == "https://k.example/v1/")
    }

    @Test func settingsResolveEachStyle() throws {
        let folder = TemporaryDirectory()
        let pem = folder.path + "/key.pem"
        try SigningKey.generateP256().publicKeyPEM.write(toFile: pem, atomically: false, encoding: .utf8)
        func settings(_ lines: String) throws -> KeySyncSettings {
            try KeySyncSettings(configuration: Configuration(parsing: "keyserver.public_key = \(pem)\n" + lines))
        }
        let google = try settings("keyserver.index_url = https://k/v1/index.txt\nkeyserver.key_id = 310")
        #expect(google.server == .indexed(indexURL: "https://k/v1/index.txt", baseURL: "https://k/v1/"))
        #expect(google.keyring.keyIDs == [VerificationKeyID(id: "310", version: "v1")])
        let based = try settings("keyserver.index_url = https://k/v1/index.txt\nkeyserver.base_url = https://cdn/\nkeyserver.key_id = 1")
        #expect(based.server == .indexed(indexURL: "https://k/v1/index.txt", baseURL: "https://cdn/"))
        let cwa = try settings("keyserver.style = cwa\nkeyserver.base_url = https://svc90/")
        #expect(cwa.server == .cwa(baseURL: "https://svc90/", country: "DE"))
        #expect(cwa.keyring.keyIDs == [VerificationKeyID(id: "262", version: "v1")])
        let local = try settings("keyserver.style = folder\nkeyserver.base_url = file:///srv/keys\nkeyserver.key_id = 1")
        #expect(local.server == .indexed(indexURL: "file:///srv/keys/index.txt", baseURL: "file:///srv/keys/"))
        #expect {
            try settings("keyserver.style = folder\nkeyserver.base_url = https://x/\nkeyserver.key_id = 1")
        } throws: { "\($0)".contains("file://") }
        #expect(try settings("sync.interval_hours = 2").server == nil)
        #expect(try settings("sync.interval_hours = 2").interval == .seconds(7200))
    }

    @Test func riskConfigFileGivesV1AndOptionallyV2() throws {
        let folder = TemporaryDirectory()
        let path = folder.path + "/risk.json"
        try """
            {"minimumRiskScore":0, "attenuationDurationThresholds":[40,60],
             "attenuationLevelValues":[1,1,1,1,1,1,1,1], "daysSinceLastExposureLevelValues":[1,1,1,1,1,1,1,1],
             "durationLevelValues":[1,1,1,1,1,1,1,1], "transmissionRiskLevelValues":[1,1,1,1,1,1,1,1]}
            """.write(toFile: path, atomically: false, encoding: .utf8)
        let settings = try KeySyncSettings(configuration: Configuration(parsing: "risk.config = \(path)"))
        #expect(settings.riskV1.attenuationDurationThresholds == [40, 60])
        #expect(settings.riskV2 == RiskDefaults.v2)
        try "{\"minimumRiskScore\":0}".write(toFile: path, atomically: false, encoding: .utf8)
        #expect {
            try KeySyncSettings(configuration: Configuration(parsing: "risk.config = \(path)"))
        } throws: { "\($0)".hasPrefix("risk.config: \(path): ") }
    }

    /// Mirrors the settings of aWrongContentLengthIsBoundedAndTheNextFileMatches (sync.give_up_after_runs = 2),
    /// aDrippingServerIsBoundedAndTheNextFileMatches (sync.min_rate = 100 for sync.min_rate_seconds = 1) and
    /// aBacklogIsTakenAtMostMaxFilesPerSync (sync.max_files = 2): each `sync.*` bound is the one a run keeps,
    /// and one left out keeps its default.
    @Test func eachSyncLimitIsTheConfiguredOne() throws {
        let configured = KeySyncLimits(configuration: try Configuration(parsing: """
            sync.give_up_after_runs = 2
            sync.min_rate = 100
            sync.min_rate_seconds = 1
            sync.max_files = 2
            sync.max_redirects = 1
            sync.download_timeout_seconds = 30
            """))
        var expected = KeySyncLimits()
        expected.giveUpAfterRuns = 2
        expected.minimumRate = 100
        expected.minimumRateWindow = .seconds(1)
        expected.maxFiles = 2
        expected.maxRedirects = 1
        expected.downloadTimeout = .seconds(30)
        #expect(configured == expected)
        #expect(KeySyncLimits(configuration: Configuration()) == KeySyncLimits(), "the defaults are the table's")
    }

    @Test func retriesBackOffExponentiallyWithinACap() {
        let policy = RetryPolicy(attempts: 6, firstDelay: .seconds(10), maximumDelay: .seconds(60))
        #expect(policy.delay(afterAttempt: 1, jitter: 1) == .seconds(10))
        #expect(policy.delay(afterAttempt: 2, jitter: 1) == .seconds(20))
        #expect(policy.delay(afterAttempt: 3, jitter: 1) == .seconds(40))
        #expect(policy.delay(afterAttempt: 4, jitter: 1) == .seconds(60))
        #expect(policy.delay(afterAttempt: 60, jitter: 1) == .seconds(60))
        #expect(policy.delay(afterAttempt: 1, jitter: 0.5) == .seconds(5))
        #expect(policy.delay(afterAttempt: 1, jitter: 9) == .seconds(15))
    }

    /// Issue 12, finding 5: only what may recover is retried; an export that cannot or must not be had is
    /// skipped (the cursor moves on); a listing that cannot be had, or a full disk, stops the run.
    @Test func failuresAreRetriedSkippedOrStopTheRun() {
        let verdict = RetryPolicy.verdict
        #expect(verdict(.transport("reset"), false) == .retry)
        #expect(verdict(.httpStatus(503), false) == .retry)
        #expect(verdict(.httpStatus(408), false) == .retry)
        #expect(verdict(.httpStatus(429), true) == .retry)
        #expect(verdict(.httpStatus(404), false) == .skipFile)
        #expect(verdict(.httpStatus(404), true) == .stopRun)
        #expect(verdict(.httpStatus(403), false) == .skipFile)
        #expect(verdict(.tooLarge(limit: 1), false) == .skipFile)
        #expect(verdict(.tooLarge(limit: 1), true) == .stopRun)
        #expect(verdict(.redirectRefused(to: "file:///etc/passwd"), false) == .skipFile)
        #expect(verdict(.tooManyRedirects(limit: 5), false) == .skipFile)
        #expect(verdict(.badURL("x"), false) == .skipFile)
        #expect(verdict(.localWrite("No space left on device"), false) == .stopRun)
    }
}
