@testable import Agent
import ENCore
import HCI
@testable import Simulation
import SystemIO
import Testing
import TestSupport

/// Issue 26's proof on the virtual air: two badges 2 m apart, A declaring calibration confidence 2 (medium) and
/// B declaring 1 (low), each recording its HCI traffic to btsnoop. The captures are read back by a reader of
/// this test's own (`BtsnoopCapture`), not by the writer, and each badge's key is published to the other's key
/// server, so each finds the other in its exposure windows, with the confidence the other declared.
@Suite struct TwoBadgeBtsnoopTests {
    @Test func eachBadgesWindowsCarryTheConfidenceTheOtherPutOnTheAir() throws {
        let dir = TemporaryDirectory()
        let sim = try Simulation(startUnixSeconds: Simulation.twoHoursBeforeMidnight, seed: 26, dataRoot: dir.path)
        for server in ["a-server", "b-server"] { try AtomicFile.makeDirectory(dir.path + "/" + server) }
        let serverA = try FolderKeyServer(in: dir.path + "/a-server"), serverB = try FolderKeyServer(in: dir.path + "/b-server")
        var settingsA = serverA.settings, settingsB = serverB.settings
        settingsA.advertiser.calibrationConfidence = .medium
        settingsB.advertiser.calibrationConfidence = .low
        let a = try sim.addBadge("a", at: .origin, settings: settingsA, btsnoop: dir.path + "/a.btsnoop")
        let b = try sim.addBadge("b", at: RadioPosition(x: 2, y: 0), settings: settingsB, btsnoop: dir.path + "/b.btsnoop")
        // 22:00 to 02:30: two hours side by side under the day's first keys, whose embargo ends at 02:00.
        sim.run(for: .seconds(4 * 3600 + 1800))

        let schedule = try KeySchedule()
        let firstDay = ENIntervalNumber(unixSeconds: Simulation.twoHoursBeforeMidnight)!.dayStart
        let keyA = try #require(a.storedKeys.first { $0.rollingStart == firstDay })
        let keyB = try #require(b.storedKeys.first { $0.rollingStart == firstDay })
        let captureA = try BtsnoopCapture(path: dir.path + "/a.btsnoop")
        let captureB = try BtsnoopCapture(path: dir.path + "/b.btsnoop")

        /// The first metadata byte of every payload among `data` that `key` made: 0x50 | confidence << 2.
        func versionBytes(_ data: [[UInt8]], of key: TemporaryExposureKey) -> Set<UInt8> {
            let rpik = schedule.rpik(key.keyData), aemk = schedule.aemk(key.keyData)
            let rpis = Set((0..<144).map { schedule.rpi(rpik: rpik, interval: ENIntervalNumber(key.rollingStart.value + UInt32($0))) })
            return Set(data.compactMap { try? AdvertisingPayload(decoding: $0) }.filter { rpis.contains($0.rpi) }.map {
                schedule.aem(aemk: aemk, rpi: $0.rpi, $0.aem).bytes[0]
            })
        }
        // What each host told its controller to put on the air: A's own payloads carry 0x58 (v1.1, confidence 2),
        // B's 0x54 (v1.1, confidence 1). Proves the board's declaration reaches the advertising data.
        #expect(versionBytes(captureA.advertisingDataSent, of: keyA) == [0x58])
        #expect(versionBytes(captureB.advertisingDataSent, of: keyB) == [0x54])
        // What each controller reported hearing over the air: B heard A's payloads with 0x58 and A heard B's with
        // 0x54. Proves the byte survives the air as the other badge receives it, not only in the sender's host.
        let heardByB = captureB.advertisementsReceived.map(\.data), heardByA = captureA.advertisementsReceived.map(\.data)
        #expect(versionBytes(heardByB, of: keyA) == [0x58])
        #expect(versionBytes(heardByA, of: keyB) == [0x54])

        // Each badge's key to the other's server; each syncs and matches what it recorded.
        try serverB.publish([DiagnosisKey(tek: keyA, transmissionRiskLevel: 4)], day: firstDay)
        try serverA.publish([DiagnosisKey(tek: keyB, transmissionRiskLevel: 4)], day: firstDay)
        var synced = 0
        for badge in [a, b] { _ = badge.control.syncNow { _ in synced += 1 } }
        for _ in 0..<600 where synced < 2 { sim.run(for: .milliseconds(100)) }
        #expect(synced == 2)

        // A's exposure windows (from B's key) report B's confidence, low (1); B's report A's, medium (2). Proves
        // the confidence decrypted from each sighting's metadata is the one kept in the windows phones' risk
        // models read (Google's calibrationConfidence, the Corona-Warn-App's per-day de-duplication).
        func windows(_ badge: SimulatedBadge) -> [ExposureWindow] {
            badge.agent.exposures.exposures.flatMap { $0.windows.compactMap { $0.exposureWindow } }
        }
        #expect(!windows(a).isEmpty && !windows(b).isEmpty)
        #expect(Set(windows(a).map(\.calibrationConfidence)) == [.low])
        #expect(Set(windows(b).map(\.calibrationConfidence)) == [.medium])
        #expect(a.agent.exposures.exposures.map(\.calibrationConfidence) == [.low])
        #expect(b.agent.exposures.exposures.map(\.calibrationConfidence) == [.medium])
    }
}
