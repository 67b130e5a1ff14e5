@testable import Agent
import ENCore
import EventLoop
import HCI
import Testing
@testable import Simulation
import TestSupport

/// Several complete agents on one virtual radio for three simulated days.
@Suite struct WholeAgentTests {
    @Test func threeDaysOfFourBadgesAndTwoPhones() throws {
        let dir = TemporaryDirectory()
        let sim = try Simulation(startUnixSeconds: Simulation.twoHoursBeforeMidnight, seed: 42, dataRoot: dir.path)
        let positions = [RadioPosition(x: 0, y: 0), RadioPosition(x: 2, y: 0), RadioPosition(x: 0, y: 2), RadioPosition(x: 2, y: 2)]
        let badges = try positions.enumerated().map { try sim.addBadge("badge\($0.offset)", at: $0.element) }
        sim.addPhone(at: RadioPosition(x: 1, y: 1))
        sim.addPhone(at: RadioPosition(x: 3, y: 1))
        let schedule = try KeySchedule()

        // Who heard whom, when; and every badge RPI checked against the sender's key file at first sight.
        var heard: [String: [MonotonicInstant]] = [:]
        var firstSeen = Set<Bytes16>()
        var unstoredAtFirstSight: [String] = []
        for receiver in badges {
            _ = receiver.agent.watchBeacons { report, _ in
                guard let sender = badges.first(where: { $0.controller.state.randomAddress == report.address }) else { return }
                heard["\(receiver.name)<-\(sender.name)", default: []].append(report.receivedAt)
                if firstSeen.insert(report.payload.rpi).inserted {
                    let now = ENIntervalNumber(unixSeconds: sim.unixSeconds(at: report.receivedAt))!.value
                    // Read from disk at the moment of first sight: was the key durable before anyone saw its RPI?
                    if schedule.key(deriving: report.payload.rpi, in: (now - 3)...now, among: sender.storedKeys) == nil {
                        unstoredAtFirstSight.append("\(sender.name) \(report.payload.rpi.hex)")
                    }
                }
            }
        }

        let days = 3
        sim.run(for: .seconds(days * 86_400))
        let end = sim.loop.now

        #expect(unstoredAtFirstSight.isEmpty, "RPIs seen before their TEK was stored: \(unstoredAtFirstSight.prefix(5))")
        #expect(firstSeen.count > days * 4 * 72, "badges rotate at least every 20 minutes")

        // Strict controller rules: not one rejected command in three days.
        for b in badges { #expect(b.controller.violations.isEmpty, "\(b.name): \(b.controller.violations.prefix(3))") }

        // Privacy: one address ↔ one RPI, across every controller; nothing on air for 20 minutes or more.
        var rpiByAddress: [BDAddress: Set<[UInt8]>] = [:]
        var addressesByData: [[UInt8]: Set<BDAddress>] = [:]
        for b in badges {
            let history = b.controller.advertisingHistory
            #expect(history.count > days * 72)
            for (i, entry) in history.enumerated() {
                rpiByAddress[entry.address, default: []].insert(entry.data)
                addressesByData[entry.data, default: []].insert(entry.address)
                let until = i + 1 < history.count ? history[i + 1].time : end
                #expect(until - entry.time < .seconds(1200), "\(b.name) kept one RPI on air \(until - entry.time)")
                #expect(entry.address.isNonResolvablePrivate)
                // The RPI on air is the one of the interval current when it went on air, from that day's key.
                let payload = try AdvertisingPayload(decoding: entry.data)
                let n = ENIntervalNumber(unixSeconds: sim.unixSeconds(at: entry.time))!.value
                let k = schedule.key(deriving: payload.rpi, in: n...n, among: b.storedKeys)
                #expect(k != nil, "\(b.name): RPI at \(n) not from the key of that interval")
            }
        }
        #expect(rpiByAddress.values.allSatisfy { $0.count == 1 }, "an address carried two RPIs")
        #expect(addressesByData.values.allSatisfy { $0.count == 1 }, "an RPI appeared under two addresses")

        // Discovery: every badge hears every other at least once in every 5 minutes.
        for r in badges {
            for s in badges where s !== r {
                let times = heard["\(r.name)<-\(s.name)"] ?? []
                #expect(!times.isEmpty)
                var previous = MonotonicInstant.zero
                var worst = Duration.zero
                for t in times + [end] {
                    worst = max(worst, t - previous)
                    previous = t
                }
                #expect(worst <= .seconds(300), "\(r.name) did not hear \(s.name) for \(worst)")
            }
        }

        // Storage: every scan's sightings reached the disk, within the care-home budget (2.5 MB for 14 days).
        for b in badges {
            b.agent.flush()
            let usage = try b.agent.store.usage()
            #expect(usage.storedSightings == b.agent.sightings.recorded)
            #expect(usage.storedSightings > days * 288 * 3, "\(b.name) stored \(usage.storedSightings)")
            #expect(usage.bytes <= days * 2_500_000 / 14, "\(b.name) used \(usage.bytes) bytes in \(days) days")
        }

        // Keys: one per UTC day, starting at midnight; the run covered four calendar days.
        for b in badges {
            let keys = b.storedKeys
            #expect(keys.count == days + 1, "\(b.name) has \(keys.count) keys")
            #expect(keys.allSatisfy { $0.rollingStart.value % 144 == 0 && $0.rollingPeriod == 144 })
            #expect(Set(keys.map(\.rollingStart)).count == keys.count)
        }
    }

    @Test func aJumpOfFifteenDaysDeletesNothingUntilNTPHasAgreedForAnHour() throws {
        let dir = TemporaryDirectory()
        let sim = try Simulation(startUnixSeconds: Simulation.twoHoursBeforeMidnight, seed: 7, dataRoot: dir.path)
        let badge = try sim.addBadge("badge", at: .origin)
        sim.addPhone(at: RadioPosition(x: 1, y: 0))
        sim.run(for: .seconds(2 * 86_400))
        #expect(badge.storedKeys.count == 3)
        let before = try badge.agent.store.usage().storedSightings
        #expect(before > 500)
        sim.loop.jumpWallClock(by: .seconds(15 * 86_400))
        sim.run(for: .seconds(600))  // the jump is noticed within 10 s; scans and flushes follow
        // Held: the three old keys and every sighting are still there, and the new day has its key.
        #expect(badge.storedKeys.count == 4)
        #expect(try badge.agent.store.usage().storedSightings >= before)
        #expect(badge.agent.clock.deletionHold?.contains("the clock jumped +15 d") == true)
        // NTP keeps agreeing for an hour: the jump counts as confirmed, and what is now old goes.
        sim.run(for: .seconds(3_600))
        #expect(badge.agent.clock.deletionHold == nil)
        let today = ENIntervalNumber(unixSeconds: sim.unixSeconds(at: sim.loop.now))!
        let keys = badge.storedKeys
        #expect(keys.count == 1)
        #expect(keys.allSatisfy { Int64($0.rollingEnd) > Int64(today.value) - 14 * 144 })
        #expect(badge.agent.advertiser.tek?.isValid(at: today) == true)
        let horizon = sim.unixSeconds - 14 * 86_400
        let kept = try badge.agent.store.newestFirst()
        #expect(!kept.isEmpty, "sightings made after the jump are kept")
        #expect(kept.allSatisfy { $0.firstSeen >= horizon }, "no sighting older than 14 days survives")
    }
}
