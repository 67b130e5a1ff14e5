@testable import Agent
@testable import AgentBase
import ENCore
import EventLoop
import Foundation
import Testing
import TestSupport

@Suite struct ExposureTests {
    static let day = UTCDay(daysSinceEpoch: 20_400)

    static func key(_ byte: UInt8, day: UTCDay = day) -> TemporaryExposureKey {
        TemporaryExposureKey(keyData: Bytes16([UInt8](repeating: byte, count: 16))!,
                             rollingStart: ENIntervalNumber(UInt32(day.daysSinceEpoch) * 144))
    }

    static func exposure(_ byte: UInt8, score: Int = 1120, day: UTCDay = day, detectedAt: Int64 = 1_762_000_000) -> Exposure {
        Exposure(id: ExposureID(key: key(byte, day: day)), date: day, durationMinutes: 35, attenuationDurations: [30, 0, 0],
                 typicalAttenuation: 50, riskScore: score, transmissionRiskLevel: 4, reportType: .confirmedTest,
                 daysSinceOnsetOfSymptoms: -1,
                 windows: [.init(date: day, score: 1800, weightedDurationSeconds: 1800.5)], detectedAt: detectedAt)
    }

    @Test func identityDependsOnKeyAndDayOnly() {
        let a = ExposureID(key: Self.key(1))
        #expect(a == ExposureID(key: Self.key(1)))
        #expect(a != ExposureID(key: Self.key(2)))
        #expect(a != ExposureID(key: Self.key(1, day: UTCDay(daysSinceEpoch: 20_401))))
        #expect(a.hex.count == 32)
        #expect(!a.hex.contains(Self.key(1).keyData.hex))
        #expect(ExposureID(hex: a.hex) == a)
        #expect(ExposureID(hex: "xyz") == nil)
    }

    @Test func jsonRoundTrips() throws {
        var exposure = Self.exposure(7)
        #expect(Exposure(json: exposure.json) == exposure)
        exposure.daysSinceOnsetOfSymptoms = nil
        exposure.windows = []
        exposure.notified = true
        #expect(Exposure(json: exposure.json) == exposure)
        #expect(!exposure.json.contains("daysSinceOnsetOfSymptoms"))
        // Foundation reads it as well: it is plain JSON.
        let object = try JSONSerialization.jsonObject(with: Data(Self.exposure(7).json.utf8)) as? [String: Any]
        #expect(object?["riskScore"] as? Int == 1120)
        #expect(object?["date"] as? String == Self.day.description)
        #expect(object?["windowScore"] as? Double == 1800)
        #expect(Exposure(json: "{\"id\":\"nope\"}") == nil)
    }

    /// The sender's calibration confidence is kept with the exposure; a line written before it was (no member)
    /// reads as lowest, a confidence with no name is refused like any other damaged member.
    @Test func calibrationConfidenceRoundTripsAndOldLinesReadAsLowest() throws {
        var exposure = Self.exposure(7)
        exposure.calibrationConfidence = .medium
        #expect(exposure.json.hasSuffix(",\"calibrationConfidence\":\"medium\"}"))
        #expect(Exposure(json: exposure.json) == exposure)
        let old = exposure.json.replacingOccurrences(of: ",\"calibrationConfidence\":\"medium\"", with: "")
        #expect(Exposure(json: old)?.calibrationConfidence == .lowest)
        #expect(Exposure(json: exposure.json.replacingOccurrences(of: "\"medium\"", with: "\"great\"")) == nil)
    }

    /// Each v2 window keeps its Google-API shape for `exposures --windows`: it reads back whole except the scan
    /// instances' times, which the API has none of (they become the day's midnight); a line written before
    /// windows kept it still reads, with none.
    @Test func windowsKeepTheirAPIShapeAndOldLinesStillRead() throws {
        var exposure = Self.exposure(7)
        let instances = [ScanInstance(time: Self.day.unixSeconds + 36_000, typicalAttenuation: 60, minAttenuation: 58,
                                      secondsSinceLastScan: 120),
                         ScanInstance(time: Self.day.unixSeconds + 36_300, typicalAttenuation: 49, minAttenuation: 41,
                                      secondsSinceLastScan: 0)]
        let window = ExposureWindow(date: Self.day, reportType: .selfReport, infectiousness: .high,
                                    scanInstances: instances, calibrationConfidence: .medium)
        exposure.windows[0].exposureWindow = window
        #expect(exposure.json.contains("\"exposureWindow\":{\"dateMillisSinceEpoch\":\(Self.day.unixSeconds * 1000),"
                                       + "\"reportType\":3,\"infectiousness\":2,\"calibrationConfidence\":2,\"scanInstances\":["
                                       + "{\"minAttenuationDb\":58,\"typicalAttenuationDb\":60,\"secondsSinceLastScan\":120},"
                                       + "{\"minAttenuationDb\":41,\"typicalAttenuationDb\":49,\"secondsSinceLastScan\":0}]}"))
        var atMidnight = window
        atMidnight.scanInstances = instances.map { var i = $0; i.time = Self.day.unixSeconds; return i }
        #expect(Exposure(json: exposure.json)?.windows.map(\.exposureWindow) == [atMidnight])
        let old = Self.exposure(7)
        #expect(!old.json.contains("exposureWindow"))
        #expect(Exposure(json: old.json) == old)
        #expect(Exposure(json: exposure.json.replacingOccurrences(of: "\"infectiousness\":2", with: "\"infectiousness\":7")) == nil)
    }

    @Test func isoDatesRoundTripAndImpossibleOnesAreRefused() {
        #expect(UTCDay(isoDate: "1970-01-01") == UTCDay(daysSinceEpoch: 0))
        #expect(UTCDay(isoDate: "2024-02-29")?.description == "2024-02-29")
        for bad in ["2023-02-29", "2026-13-01", "2026-1-01", "20261101", "2026-11-01x", ""] {
            #expect(UTCDay(isoDate: bad) == nil, "\(bad)")
        }
    }

    @Test func logRecordsOnceUpdatesRevokesAndPersists() throws {
        let folder = TemporaryDirectory()
        let log = ExposureLog(dataDirectory: folder.path, log: .silent)
        #expect(log.exposures.isEmpty)

        let first = try log.apply(found: [Self.exposure(1), Self.exposure(2)])
        #expect(Set(first.added.map(\.id)) == [Self.exposure(1).id, Self.exposure(2).id])
        #expect(log.exposures.count == 2)

        // Seen again (a later detection time, a new score): updated, not added, first detection kept.
        let again = try log.apply(found: [Self.exposure(1, score: 900, detectedAt: 1_762_999_999)])
        #expect(again.added.isEmpty && again.updated == 1)
        let one = try #require(log.exposures.first { $0.id == Self.exposure(1).id })
        #expect(one.riskScore == 900)
        #expect(one.detectedAt == 1_762_000_000)
        #expect(try log.apply(found: [Self.exposure(1, score: 900)]).isEmpty)

        // Revoked: removed, and an old file cannot bring it back.
        let revoked = try log.apply(found: [], revoked: [(Self.exposure(2).id, Self.day)])
        #expect(revoked.revoked == 1)
        #expect(log.exposures.map(\.id) == [Self.exposure(1).id])
        #expect(try log.apply(found: [Self.exposure(2)]).added.isEmpty)

        let reopened = ExposureLog(dataDirectory: folder.path, log: .silent)
        #expect(reopened.exposures == log.exposures)
        #expect(reopened.revokedIDs == log.revokedIDs)
        let mode = try FileManager.default.attributesOfItem(atPath: log.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    @Test func oldExposuresAreDeletedAfter14Days() throws {
        let folder = TemporaryDirectory()
        let log = ExposureLog(dataDirectory: folder.path, log: .silent)
        let old = UTCDay(daysSinceEpoch: Self.day.daysSinceEpoch - 20)
        try log.apply(found: [Self.exposure(1, day: old), Self.exposure(2)], revoked: [(Self.exposure(3, day: old).id, old)])
        #expect(try log.prune(today: UTCDay(daysSinceEpoch: Self.day.daysSinceEpoch + 14)) == 1)
        #expect(log.exposures.map(\.id) == [Self.exposure(2).id])
        #expect(log.revokedIDs.isEmpty)
        #expect(try log.prune(today: UTCDay(daysSinceEpoch: Self.day.daysSinceEpoch + 15)) == 1)
        #expect(log.exposures.isEmpty)
    }

    @Test func damagedLinesCostOnlyThemselves() throws {
        let folder = TemporaryDirectory()
        let text = Self.exposure(1).json + "\n{\"half\n" + Self.exposure(2).json + "\n"
        try text.write(toFile: folder.path + "/exposures", atomically: false, encoding: .utf8)
        var warnings: [String] = []
        let log = ExposureLog(dataDirectory: folder.path, log: Logger(level: .warn) { _, line in warnings.append(line) })
        #expect(log.exposures.count == 2)
        #expect(warnings.count == 1 && warnings[0].contains("1 damaged line"))
    }

    @Test func dailySummariesAddWindowsPerDay() {
        let other = UTCDay(daysSinceEpoch: Self.day.daysSinceEpoch + 1)
        var selfReported = Self.exposure(3, day: other)
        selfReported.reportType = .selfReport
        selfReported.windows = [.init(date: other, score: 300, weightedDurationSeconds: 600)]
        let summaries = ExposureScoring.dailySummaries(of: [Self.exposure(1), Self.exposure(2), selfReported],
                                                       v2: RiskDefaults.v2)
        #expect(summaries.map(\.date) == [Self.day, other])
        #expect(summaries[0].overall == ExposureSummaryData(scoreSum: 3600, maximumScore: 1800, weightedDurationSum: 3601))
        #expect(summaries[1].summary(for: .selfReport).scoreSum == 300)
        #expect(summaries[1].summary(for: .confirmedTest) == .zero)
    }

    @Test func scoringCombinesTheRunsOfOneKey() throws {
        // Two meetings of the same key on its day, more than ten minutes apart: two v1 exposures, one record.
        let sightings = (0..<4).map { MatchedSighting(time: 1_762_000_000 + Int64($0) * 300, attenuation: 45,
                                                      secondsSincePreviousScan: 300) }
            + (0..<2).map { MatchedSighting(time: 1_762_010_000 + Int64($0) * 300, attenuation: 75,
                                            secondsSincePreviousScan: 300) }
        let key = MatchedKey(rollingStart: ENIntervalNumber(unixSeconds: 1_762_000_000)!.dayStart,
                             transmissionRiskLevel: 4, reportType: .confirmedTest, daysSinceOnsetOfSymptoms: nil,
                             sightings: sightings)
        let id = ExposureID(key: Self.key(9))
        let exposure = try #require(ExposureScoring.exposure(to: key, id: id, v1: RiskDefaults.v1, v2: RiskDefaults.v2,
                                                             today: UTCDay(unixSeconds: 1_762_100_000),
                                                             detectedAt: 1_762_100_000))
        #expect(exposure.durationMinutes == 30)
        #expect(exposure.attenuationDurations == [20, 0, 10])
        #expect(exposure.typicalAttenuation == 45)
        #expect(exposure.windows.count == 2)
        let revoked = MatchedKey(rollingStart: key.rollingStart, transmissionRiskLevel: 4, reportType: .revoked,
                                 daysSinceOnsetOfSymptoms: nil, sightings: sightings)
        #expect(ExposureScoring.exposure(to: revoked, id: id, v1: RiskDefaults.v1, v2: RiskDefaults.v2,
                                         today: UTCDay(unixSeconds: 1_762_100_000), detectedAt: 0) == nil)
    }
}

/// notify.command on a real PollLoop: input on stdin, exit collected on the loop, failures logged.
@Suite struct ExposureNotifyTests {
    let folder = TemporaryDirectory()
    let loop = PollLoop()

    /// Runs the loop until every command has no child left; the exit statuses in the order they came.
    func runUntilReaped(_ commands: NotifyCommand...) -> [Int32] {
        var statuses: [Int32] = []
        for command in commands { command.onExit = { statuses.append($0) } }
        #expect(loop.run(until: { commands.allSatisfy { $0.running == 0 } }, timeout: .seconds(20)))
        return statuses
    }

    @Test func commandReadsTheDocumentOnStdin() throws {
        let command = NotifyCommand("cat > \(folder.path)/got.json; echo done >> \(folder.path)/ran", loop: loop, log: .silent)
        let document = ExposureTests.exposure(1).json + "\n"
        command.run(input: Array(document.utf8), label: "test")
        #expect(command.running == 1)
        #expect(runUntilReaped(command) == [0])
        #expect(command.running == 0 && command.failed == 0)
        #expect(try String(contentsOfFile: folder.path + "/got.json", encoding: .utf8) == document)
    }

    @Test func largeInputIsFedWithoutBlocking() throws {
        // Larger than a socket buffer: the rest goes out as the child reads.
        let big = [UInt8](repeating: UInt8(ascii: "x"), count: 2_000_000)
        let command = NotifyCommand("sleep 0.2; wc -c > \(folder.path)/count", loop: loop, log: .silent)
        var ticks = 0
        var ticking: TimerHandle?
        func tick() { ticks += 1; ticking = loop.schedule(after: .milliseconds(5), tick) }
        tick()
        command.run(input: big, label: "big")
        #expect(runUntilReaped(command) == [0])
        // A pending timer would hold the loop and this folder for ever (its closure holds them).
        ticking.map(loop.cancel)
        #expect(ticks > 5, "the loop kept running while the child was fed")
        let count = try String(contentsOfFile: folder.path + "/count", encoding: .utf8)
        #expect(count.trimmingCharacters(in: .whitespacesAndNewlines) == "2000000")
    }

    @Test func failingCommandIsLoggedNotFatal() {
        var lines: [String] = []
        let log = Logger(level: .debug) { level, line in lines.append("\(level) \(line)") }
        let command = NotifyCommand("exit 3", loop: loop, log: log)
        command.run(input: Array("{}".utf8), label: "exposure abc")
        let ignoring = NotifyCommand("true", loop: loop, log: log)
        ignoring.run(input: [UInt8](repeating: 0, count: 1_000_000), label: "ignores stdin")
        #expect(Set(runUntilReaped(command, ignoring)) == [3, 0])
        #expect(command.failed == 1)
        #expect(lines.contains("warn notify: exposure abc: command failed with status 3 event=notify_failed"))
    }

    @Test func hungCommandIsKilledAfterItsTimeLimit() {
        // A shell with a child of its own: the whole process group goes.
        let command = NotifyCommand("sleep 30 & sleep 30; wait", loop: loop, log: .silent)
        command.timeLimit = .milliseconds(100)
        command.run(input: [], label: "hung")
        #expect(runUntilReaped(command) == [128 + SIGKILL])
    }

    @Test func childStartsWithSignalsUnblocked() throws {
        // The agent blocks SIGTERM for its signalfd; a command must still be stoppable.
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGTERM)
        var old = sigset_t()
        pthread_sigmask(SIG_BLOCK, &set, &old)
        defer { pthread_sigmask(SIG_SETMASK, &old, nil) }
        let command = NotifyCommand("grep SigBlk /proc/self/status > \(folder.path)/mask", loop: loop, log: .silent)
        command.run(input: [], label: "mask")
        #expect(runUntilReaped(command) == [0])
        let mask = try String(contentsOfFile: folder.path + "/mask", encoding: .utf8)
        #expect(mask.hasSuffix("0000000000000000\n"))
    }

    @Test func notifierNotifiesEachExposureAtOrAboveTheThresholdOnce() throws {
        let log = ExposureLog(dataDirectory: folder.path, log: .silent)
        try log.apply(found: [ExposureTests.exposure(1, score: 100), ExposureTests.exposure(2, score: 99)])
        var lines: [String] = []
        let notifier = ExposureNotifier(loop: loop, settings: .init(threshold: 100, command: "cat >> \(folder.path)/n"),
                                        log: Logger(level: .info) { _, line in lines.append(line) })
        notifier.notifyPending(in: log)
        notifier.notifyPending(in: log)
        #expect(notifier.notified == 1)
        #expect(lines.count == 1 && lines[0].contains("risk score 100 (threshold 100)"))
        #expect(!lines[0].contains(ExposureTests.key(1).keyData.hex))
        #expect(runUntilReaped(try #require(notifier.command)) == [0])
        #expect(log.exposures.filter(\.notified).map(\.riskScore) == [100])
        // Raising the score of the other one (a revision) notifies it then.
        try log.apply(found: [ExposureTests.exposure(2, score: 400)])
        notifier.notifyPending(in: log)
        #expect(notifier.notified == 2)
        #expect(runUntilReaped(try #require(notifier.command)) == [0])
        #expect(try String(contentsOfFile: folder.path + "/n", encoding: .utf8).split(separator: "\n").count == 2)
    }
}
