@testable import Agent
import ENCore
import HCI
@testable import Simulation
import Testing
import TestSupport

/// What a badge puts in its encrypted metadata, read back as a phone that later learns its key would: version
/// 1.1 with the calibration confidence its board profile declares, and the controller's advertising TX power.
@Suite struct BroadcastMetadataTests {
    @Test func badgesBroadcastVersionOneOneWithTheirBoardsConfidence() throws {
        let dir = TemporaryDirectory()
        let sim = try Simulation(startUnixSeconds: Simulation.twoHoursBeforeMidnight, seed: 7, dataRoot: dir.path)
        var measured = Agent.Settings()
        measured.advertiser.calibrationConfidence = .medium
        let plain = try sim.addBadge("plain", at: RadioPosition(x: 0, y: 0))
        let calibrated = try sim.addBadge("calibrated", at: RadioPosition(x: 2, y: 0), settings: measured)
        sim.run(for: .seconds(3 * 3600))  // across midnight: two keys each

        let schedule = try KeySchedule()
        for (badge, version) in [(plain, UInt8(0x50)), (calibrated, 0x58)] {
            let history = badge.controller.advertisingHistory
            #expect(history.count >= 9, "\(badge.name) rotates at least every 20 minutes")
            for entry in history {
                let payload = try AdvertisingPayload(decoding: entry.data)
                let n = ENIntervalNumber(unixSeconds: sim.unixSeconds(at: entry.time))!.value
                let key = try #require(schedule.key(deriving: payload.rpi, in: n...n, among: badge.storedKeys))
                let metadata = Metadata(schedule.aem(aemk: schedule.aemk(key.keyData), rpi: payload.rpi, payload.aem))
                #expect(metadata.version == version && metadata.minorVersion == 1, "\(badge.name): \(metadata)")
                #expect(metadata.txPower == badge.controller.configuration.txPower && metadata.reserved == 0)
            }
        }
    }
}
