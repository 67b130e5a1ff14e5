import Agent
import AgentBase
import ENCore
import EventLoop
import HCI

/// A phone running Exposure Notification, as the virtual radio sees it: its own TEK, a GAEN payload
/// under a random address, both rotated together every 10–20 minutes. No HCI host: it is scenery for
/// the virtual board and the simulations, so a newcomer sees sightings arrive at the first scan.
package final class SimulatedPhone {
    let beacon: VirtualBeacon
    package private(set) var tek: TemporaryExposureKey
    private let loop: any EventLoop
    private let schedule: KeySchedule
    private var generator: ServiceRandom
    private var timer: TimerHandle?

    init(radio: VirtualRadio, at position: RadioPosition, txPower: Int8, schedule: KeySchedule,
                generator: ServiceRandom) {
        self.loop = radio.loop
        self.schedule = schedule
        self.generator = generator
        let now = ENIntervalNumber(unixSeconds: max(0, radio.loop.unixNanoseconds / 1_000_000_000)) ?? ENIntervalNumber(0)
        tek = TemporaryExposureKey.generate(for: now, using: &self.generator)
        beacon = radio.addBeacon(address: BDAddress.nonResolvablePrivate(using: &self.generator), data: [],
                                 at: position, txPower: txPower)
        rotate()
    }

    package func stop() {
        if let timer { loop.cancel(timer) }
        beacon.isAdvertising = false
    }

    private func rotate() {
        let now = ENIntervalNumber(unixSeconds: max(0, loop.unixNanoseconds / 1_000_000_000)) ?? ENIntervalNumber(0)
        if !tek.isValid(at: now) { tek = TemporaryExposureKey.generate(for: now, using: &generator) }
        let rpi = schedule.rpi(rpik: schedule.rpik(tek.keyData), interval: now)
        let aem = schedule.aem(aemk: schedule.aemk(tek.keyData), rpi: rpi, Metadata(txPower: beacon.txPower).plaintext)
        beacon.address = BDAddress.nonResolvablePrivate(using: &generator)
        beacon.data = AdvertisingPayload(rpi: rpi, aem: aem).encoded(includingFlags: false)
        beacon.isAdvertising = true
        let delay = Duration.seconds(600) + .nanoseconds(Int64.random(in: 0..<600_000_000_000, using: &generator))
        timer = loop.schedule(after: delay) { self.rotate() }
    }
}
