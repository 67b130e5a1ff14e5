@testable import Agent
import ENCore
import EventLoop
import HCI
import Testing
@testable import Simulation
import TestSupport

@Suite struct ClockTrustTests {
    @Test func noAdvertisingOrScanningBeforeTheOperatorTrustsTheClock() throws {
        let dir = TemporaryDirectory()
        let sim = try Simulation(startUnixSeconds: Simulation.twoHoursBeforeMidnight, seed: 1, dataRoot: dir.path)
        var settings = Agent.Settings()
        settings.clockPolicy = .ntp
        let badge = try sim.addBadge("untrusted", at: .origin, settings: settings,
                                     clockProbe: SwitchableClockProbe(synchronised: false))
        let listener = try sim.addBadge("listener", at: RadioPosition(x: 1, y: 0))
        var heardUntrusted = 0
        _ = listener.agent.watchBeacons { r, _ in if r.address == badge.controller.state.randomAddress { heardUntrusted += 1 } }

        sim.run(for: .seconds(3600))
        #expect(badge.agent.driver.phase == .ready, "the controller is initialised meanwhile")
        #expect(badge.controller.advertisingHistory.isEmpty)
        #expect(!badge.controller.state.isScanning && badge.agent.scanner.scans == 0)
        #expect(badge.storedKeys.isEmpty, "no key is made before the date is known")
        #expect(!badge.agent.clock.isTrusted)
        #expect("\(badge.agent.clock.trust)".contains("not trusted"))

        badge.agent.clock.trustByOperator()
        sim.run(for: .seconds(1))
        #expect(badge.controller.advertisingHistory.count == 1)
        sim.run(for: .seconds(300))
        #expect(heardUntrusted > 0)
    }

    @Test func ntpSynchronisingLaterStartsTheBadge() throws {
        let dir = TemporaryDirectory()
        let sim = try Simulation(startUnixSeconds: Simulation.twoHoursBeforeMidnight, seed: 2, dataRoot: dir.path)
        var settings = Agent.Settings()
        settings.clockPolicy = .ntp
        let probe = SwitchableClockProbe(synchronised: false)
        let badge = try sim.addBadge("pi", at: .origin, settings: settings, clockProbe: probe)
        sim.run(for: .seconds(600))
        #expect(badge.controller.advertisingHistory.isEmpty)
        probe.synchronised = true
        sim.run(for: .seconds(11))  // the clock polls every 10 s
        #expect(badge.agent.clock.isTrusted)
        #expect(badge.controller.advertisingHistory.count == 1)
    }

    @Test func forwardJumpOfDaysRotatesAtOnceWithANewKeyAndKeepsTheOldOnes() throws {
        let dir = TemporaryDirectory()
        let sim = try Simulation(startUnixSeconds: Simulation.twoHoursBeforeMidnight, seed: 3, dataRoot: dir.path)
        let badge = try sim.addBadge("badge", at: .origin)
        sim.run(for: .seconds(3 * 3600))  // 22:00 → 01:00, past midnight: two keys
        let before = badge.storedKeys
        #expect(before.count == 2)
        let entries = badge.controller.advertisingHistory.count
        sim.loop.jumpWallClock(by: .seconds(3 * 86_400))
        sim.run(for: .seconds(11))
        #expect(badge.agent.clock.jumps == 1)
        #expect(badge.controller.advertisingHistory.count == entries + 1, "rotated at once")
        let after = badge.storedKeys
        #expect(after.count == 3)
        #expect(Set(before).isSubset(of: Set(after)), "stored keys survive the jump")
        let today = ENIntervalNumber(unixSeconds: sim.unixSeconds(at: sim.loop.now))!
        #expect(badge.agent.advertiser.tek?.isValid(at: today) == true)
        #expect(badge.controller.violations.isEmpty)
    }

    @Test func backwardJumpOfHoursAcrossMidnightReusesThatDaysKey() throws {
        let dir = TemporaryDirectory()
        let sim = try Simulation(startUnixSeconds: Simulation.twoHoursBeforeMidnight, seed: 4, dataRoot: dir.path)
        let badge = try sim.addBadge("badge", at: .origin)
        sim.run(for: .seconds(3 * 3600))  // 22:00 → 01:00: yesterday's and today's keys
        let before = badge.storedKeys
        #expect(before.count == 2)
        let entries = badge.controller.advertisingHistory.count
        sim.loop.jumpWallClock(by: .seconds(-4 * 3600))  // back to 21:00 the previous day
        sim.run(for: .seconds(11))
        #expect(badge.agent.clock.jumps == 1)
        #expect(badge.controller.advertisingHistory.count == entries + 1, "rotated at once")
        #expect(Set(badge.storedKeys) == Set(before), "no second key for a day that has one")
        #expect(badge.agent.advertiser.tek == before.min { $0.rollingStart < $1.rollingStart })
        sim.run(for: .seconds(6 * 3600))
        #expect(badge.controller.violations.isEmpty)
    }
}
