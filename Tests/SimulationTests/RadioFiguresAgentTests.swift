@testable import Agent
import ENCore
import HCI
@testable import Simulation
import Testing
import TestSupport

/// The board's radio figures on whole agents: the TX power at the antenna it declares is what its metadata
/// tells receivers, and its RSSI correction changes the attenuation of what it heard, dB for dB.
@Suite struct RadioFiguresAgentTests {
    @Test func theBoardsTXPowerAtTheAntennaIsTheTXPowerInTheMetadataBytes() throws {
        let dir = TemporaryDirectory()
        let sim = try Simulation(startUnixSeconds: Simulation.twoHoursBeforeMidnight, seed: 5, dataRoot: dir.path)
        let board = try BoardProfile(parsing: "radio.tx_power = -12\nradio.calibration_confidence = 1", defaultName: "b")
        var settings = Agent.Settings()
        settings.advertiser.txPower = board.txPower
        settings.advertiser.calibrationConfidence = board.calibrationConfidence
        let badge = try sim.addBadge("antenna", at: .origin, settings: settings)
        sim.run(for: .seconds(1800))

        let schedule = try KeySchedule()
        let history = badge.controller.advertisingHistory
        #expect(!history.isEmpty)
        for entry in history {
            let payload = try AdvertisingPayload(decoding: entry.data)
            let n = ENIntervalNumber(unixSeconds: sim.unixSeconds(at: entry.time))!.value
            let key = try #require(schedule.key(deriving: payload.rpi, in: n...n, among: badge.storedKeys))
            let plaintext = schedule.aem(aemk: schedule.aemk(key.keyData), rpi: payload.rpi, payload.aem)
            // Version 1.1 with confidence 1 (0x54), then −12 dBm as a signed byte (0xF4), not the controller's 8.
            #expect(plaintext.bytes == [0x54, 0xF4, 0x00, 0x00], "\(plaintext.bytes)")
            #expect(badge.controller.configuration.txPower != -12)
        }
    }

    /// Two badges hear the same key at the same strength; the one whose board declares a +7 dB correction finds
    /// every window 7 dB nearer, typical and minimum alike.
    @Test func aBoardsCorrectionOfSevenDecibelsLowersTheFoundAttenuationsBySeven() throws {
        let dir = TemporaryDirectory()
        let sim = try Simulation(startUnixSeconds: Simulation.twoHoursBeforeMidnight, seed: 6, dataRoot: dir.path)
        let server = try FolderKeyServer(in: dir.path)
        var corrected = server.settings
        try corrected.configuration.setBoardValue("radio.rssi_correction", to: "7")
        let badges = [try sim.addBadge("plain", at: .origin, settings: server.settings),
                      try sim.addBadge("corrected", at: RadioPosition(x: 500, y: 0), settings: corrected)]
        let keyDay = ENIntervalNumber(unixSeconds: sim.unixSeconds)!.dayStart.advanced(by: -288)!
        let tek = TemporaryExposureKey(keyData: Bytes16([UInt8](repeating: 0x3C, count: 16))!, rollingStart: keyDay)
        let nine = keyDay.unixSeconds + 9 * 3600
        for badge in badges { try FolderKeyServer.hear(tek, at: stride(from: nine, through: nine + 900, by: 300), on: badge) }
        try server.publish([DiagnosisKey(tek: tek, transmissionRiskLevel: 4)], day: keyDay)
        sim.run(for: .seconds(5))
        var done = 0
        for badge in badges { _ = badge.control.syncNow { _ in done += 1 } }
        for _ in 0..<600 where done < 2 { sim.run(for: .milliseconds(100)) }

        func instances(_ badge: SimulatedBadge) -> [ScanInstance] {
            badge.agent.exposures.exposures.flatMap { $0.windows.compactMap { $0.exposureWindow } }.flatMap(\.scanInstances)
        }
        let plain = instances(badges[0]), nearer = instances(badges[1])
        #expect(plain.count == 4 && nearer.count == plain.count)
        for (p, n) in zip(plain, nearer) {
            #expect(n.typicalAttenuation == p.typicalAttenuation - 7 && n.minAttenuation == p.minAttenuation - 7)
        }
    }
}
