@testable import Agent
@testable import AgentBase
@testable import Console
import ENCore
import Foundation
@testable import KeyDownload
@testable import Simulation
import SystemIO
import Testing
import TestSupport

/// `exposures --windows --json` on a whole agent in virtual time: a key sync finds a key the badge heard, and the
/// console gives its v2 windows under Google's API names, formed as Google's reference forms them.
@Suite struct ExposureWindowsConsoleTests {
    @Test func exposuresWindowsJSONShowsGooglesWindowsOfAFoundKey() throws {
        let dir = TemporaryDirectory()
        let sim = try Simulation(startUnixSeconds: Simulation.twoHoursBeforeMidnight, seed: 43, dataRoot: dir.path)
        let server = try FolderKeyServer(in: dir.path)
        let badge = try sim.addBadge("wearer", at: .origin, settings: server.settings)
        let keyDay = ENIntervalNumber(unixSeconds: sim.unixSeconds)!.dayStart.advanced(by: -288)!
        let tek = TemporaryExposureKey(keyData: Bytes16([UInt8](repeating: 0x6B, count: 16))!, rollingStart: keyDay)
        // Heard every 5 minutes from 09:00 to 09:30, TX power 0: mean −50 dBm is 50 dB, strongest −45 dBm 45 dB.
        let nine = keyDay.unixSeconds + 9 * 3600
        try FolderKeyServer.hear(tek, at: stride(from: nine, through: nine + 1800, by: 300), on: badge)
        let table = AgentConsole.commandTable(for: AgentControl(agent: badge.agent, stop: {}))
        sim.run(for: .seconds(5))
        #expect(Self.reply(table.execute("exposures --windows", channel: .socket)) == "no exposure windows")

        try server.publish([DiagnosisKey(tek: tek, transmissionRiskLevel: 4)], day: keyDay)
        var report: SyncReport?
        _ = badge.control.syncNow { report = $0.first?.report }
        for _ in 0..<600 where report == nil { sim.run(for: .milliseconds(100)) }
        #expect(report?.newExposures == 1, "\(String(describing: report))")

        // Google's windows (KeyExposureEvaluator.shouldStartNewExposureWindow): 09:00…09:25 is one window of six
        // instances; 09:30 is 30 minutes after its first sighting, so it opens a second. Each instance: 5 clock
        // minutes since the previous scan, 300 s. Report type confirmed test (1), standard infectiousness (1, no
        // days since onset), lowest confidence (0, a v1.0 sender); both windows on the key's day.
        let json = try #require(Self.reply(table.execute("exposures --windows --json", channel: .socket)))
        let object = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
        let windows = try #require(object?["exposureWindows"] as? [[String: Any]])
        let instance: [String: Int] = ["minAttenuationDb": 45, "typicalAttenuationDb": 50, "secondsSinceLastScan": 300]
        #expect(windows.count == 2)
        for (window, count) in zip(windows, [6, 1]) {
            #expect(window["dateMillisSinceEpoch"] as? Int == Int(keyDay.unixSeconds) * 1000)
            #expect(window["reportType"] as? Int == 1 && window["infectiousness"] as? Int == 1)
            #expect(window["calibrationConfidence"] as? Int == 0)
            #expect((window["scanInstances"] as? [[String: Int]]) == Array(repeating: instance, count: count), "\(json)")
        }
        // The record on disk keeps them: a restarted agent shows the same windows.
        let reread = ExposureLog(dataDirectory: badge.dataDirectory, log: .silent)
        #expect(reread.exposures.flatMap { $0.windows.compactMap { $0.exposureWindow?.apiJSON } }
                == badge.agent.exposures.exposures.flatMap { $0.windows.compactMap { $0.exposureWindow?.apiJSON } })
        let text = try #require(Self.reply(table.execute("exposures --windows", channel: .socket)))
        #expect(text.split(separator: "\n").count == 2)
        #expect(text.hasPrefix("\(UTCDay(keyDay))  confirmedTest, standard infectiousness, calibration lowest: 50/45 dB 300 s, "), "\(text)")
    }

    static func reply(_ outcome: ConsoleOutcome) -> String? {
        if case .reply(.text(let t), _) = outcome { return t }
        if case .reply(.json(let t), _) = outcome { return t }
        return nil
    }
}
