@testable import Agent
@testable import AgentBase
import ENCore
import EventLoop
import HCI
@testable import Simulation
import Testing
import TestSupport

/// A transmitter spraying random RPIs (hundreds of fake beacons a scan) is stored only up to the per-scan
/// and per-hour limits, so it cannot push the real sightings out of the ring; what it costs is counted.
@Suite struct SightingFloodTests {
    @Test func aFloodIsCappedPerScanAndPerHourAndCounted() throws {
        let dir = TemporaryDirectory()
        let sim = try Simulation(startUnixSeconds: Simulation.twoHoursBeforeMidnight, seed: 41, dataRoot: dir.path)
        var settings = Agent.Settings()
        settings.configuration = try Configuration(parsing: "sightings.max_per_scan = 100\nsightings.max_per_hour = 300")
        let badge = try sim.addBadge("badge", at: .origin, settings: settings)
        sim.addPhone(at: RadioPosition(x: 1, y: 0))
        sim.run(for: .seconds(3600))
        badge.agent.flush()
        let real = try badge.agent.store.newestFirst()
        #expect(real.count >= 12, "a scan every 210-290 s heard the phone")

        // Eight transmitters, each with a new random RPI every 20 ms: some 1,600 distinct beacons a scan.
        var random = SplitMix64(seed: 99)
        let flooders = (0..<8).map { i in
            sim.radio.addBeacon(address: .nonResolvablePrivate(using: &random), data: [],
                                at: RadioPosition(x: 0.5, y: Double(i) * 0.1), interval: .milliseconds(10))
        }
        func spray() {
            for beacon in flooders {
                let rpi = Bytes16((0..<16).map { _ in UInt8.random(in: 0...255, using: &random) })!
                beacon.data = AdvertisingPayload(rpi: rpi, aem: AssociatedEncryptedMetadata(word: 0)).encoded()
            }
            sim.loop.schedule(after: .milliseconds(20)) { spray() }
        }
        spray()
        let recordedBefore = badge.agent.sightings.recorded
        sim.run(for: .seconds(1200))
        badge.agent.flush()
        let stored = badge.agent.sightings.recorded - recordedBefore
        #expect(stored <= 300, "at most the hour's limit: \(stored)")
        let dropped = badge.agent.sightings.dropped
        #expect(dropped.overScanLimit > 1_000, "\(dropped)")
        #expect(dropped.overHourLimit > 0, "\(dropped)")
        let kept = Set(try badge.agent.store.newestFirst(limit: 100_000))
        #expect(Set(real).isSubset(of: kept), "every real sighting from before the flood is still stored")
    }
}
