@testable import Agent
@testable import AgentBase
import ENCore
import EventLoop
import HCI
@testable import Simulation
import Testing
import TestSupport

/// Time never destroys data: a wrong jump of the wall clock (a bad NTP answer, a typo at `time set`, an RTC
/// that reset) loses no key and no sighting, and never makes a second key for a day.
@Suite struct TimeJumpTests {
    /// A badge whose board trusts its clock but has no NTP to agree with: only the operator confirms.
    func badgeWithoutNTP(_ sim: Simulation) throws -> SimulatedBadge {
        var settings = Agent.Settings()
        settings.clockPolicy = .rtc
        let badge = try sim.addBadge("badge", at: .origin, settings: settings,
                                     clockProbe: FixedClockSyncProbe(synchronised: false))
        sim.addPhone(at: RadioPosition(x: 1, y: 0))
        return badge
    }

    @Test func fifteenDaysForwardAndBackLoseNoKeyNoSightingAndMakeNoSecondKey() throws {
        let dir = TemporaryDirectory()
        let sim = try Simulation(startUnixSeconds: Simulation.twoHoursBeforeMidnight, seed: 21, dataRoot: dir.path)
        let badge = try badgeWithoutNTP(sim)
        sim.run(for: .seconds(3 * 3600))  // past midnight: two keys
        let keysBefore = badge.storedKeys
        #expect(keysBefore.count == 2)
        badge.agent.flush()
        let sightingsBefore = try badge.agent.store.newestFirst()
        #expect(sightingsBefore.count > 20)

        sim.loop.jumpWallClock(by: .seconds(15 * 86_400))
        sim.run(for: .seconds(2 * 3600))
        #expect(badge.agent.clock.deletionHold?.hasPrefix("the clock jumped +15 d 0 h") == true)
        sim.loop.jumpWallClock(by: .seconds(-15 * 86_400))
        sim.run(for: .seconds(2 * 3600))
        badge.agent.flush()

        let keysAfter = badge.storedKeys
        // The days before the jump kept their keys; the future day got one of its own, nothing else.
        #expect(Set(keysBefore).isSubset(of: Set(keysAfter)))
        #expect(keysAfter.count == 3)
        #expect(Set(keysAfter.map(\.rollingStart)).count == keysAfter.count, "one key per UTC day")
        let today = ENIntervalNumber(unixSeconds: sim.unixSeconds)!
        #expect(badge.agent.advertiser.tek == keysBefore.last, "today's key from before the jump is on air again")
        #expect(badge.agent.advertiser.tek?.isValid(at: today) == true)
        let sightingsAfter = Set(try badge.agent.store.newestFirst(limit: 100_000))
        #expect(Set(sightingsBefore).isSubset(of: sightingsAfter), "every sighting from before the jump is kept")
        #expect(badge.controller.violations.isEmpty)
    }

    @Test func anHourBackLosesNothingAndReusesTheDaysKey() throws {
        let dir = TemporaryDirectory()
        let sim = try Simulation(startUnixSeconds: Simulation.twoHoursBeforeMidnight, seed: 22, dataRoot: dir.path)
        let badge = try badgeWithoutNTP(sim)
        sim.run(for: .seconds(3 * 3600))
        badge.agent.flush()
        let keysBefore = badge.storedKeys
        let sightingsBefore = try badge.agent.store.newestFirst()
        sim.loop.jumpWallClock(by: .seconds(-3600))
        sim.run(for: .seconds(3600))
        badge.agent.flush()
        #expect(badge.storedKeys == keysBefore)
        #expect(Set(sightingsBefore).isSubset(of: Set(try badge.agent.store.newestFirst(limit: 100_000))))
    }

    @Test func aHeldDeletionResumesWhenTheOperatorTrustsTheTime() throws {
        let dir = TemporaryDirectory()
        let sim = try Simulation(startUnixSeconds: Simulation.twoHoursBeforeMidnight, seed: 23, dataRoot: dir.path)
        let badge = try badgeWithoutNTP(sim)
        sim.run(for: .seconds(3 * 3600))
        sim.loop.jumpWallClock(by: .seconds(15 * 86_400))
        // Without NTP nothing confirms the jump by itself, however long it lasts.
        sim.run(for: .seconds(6 * 3600))
        #expect(badge.storedKeys.count == 3)
        #expect(badge.agent.clock.deletionHold != nil)
        let status = AgentControl(agent: badge.agent, stop: {}).status()
        #expect(status.deletionHold?.contains("time trust") == true)
        badge.agent.clock.trustByOperator()
        badge.agent.flush()
        #expect(badge.agent.clock.deletionHold == nil)
        #expect(badge.storedKeys.count == 1, "the keys of 15 days ago go once the time is confirmed")
    }
}
