import AgentBase
import ENCore
import EventLoop
import HCI
import Store
import SystemIO

/// Keeps the current RPI on air and rotates it, with its address, at a uniformly random moment in
/// [10, 20) minutes — always with the RPI of the interval current at that moment, under the address derived
/// from the key and that interval (`KeySchedule.addressBits`): one RPI, one address, across restarts and
/// clock jumps. A new TEK is made when no stored key covers the current interval (UTC midnight), and it is
/// on disk (`DATA/keys`) before its first RPI goes on air; one key per UTC day, ever.
package final class Advertiser {
    package struct Settings: Sendable {
        /// Rotation delay bounds; the upper bound never exceeds 20 minutes (receivers drop an RPI seen
        /// for longer, and a longer-lived address helps a tracker).
        var rotationMin: Duration = .seconds(600)
        var rotationMax: Duration = .seconds(1200)
        /// Sent with the TX power in the metadata (v1.1): the board profile's `radio.calibration_confidence`.
        package var calibrationConfidence = CalibrationConfidence.lowest
        /// The TX power at the antenna the board profile declares (`radio.tx_power`), dBm; nil: the
        /// controller's reported advertising TX power.
        package var txPower: Int8?
        package init() {}
    }

    private let loop: any EventLoop
    private let clock: Clock
    private let radio: GAENRadio
    private let schedule: KeySchedule
    private let settings: Settings
    private let log: Logger
    private var generator: ServiceRandom
    private var rotationTimer: TimerHandle?
    private let keyFile: KeyFile?
    /// Own keys of the last 14 days, in rolling-start order.
    package private(set) var keys: [TemporaryExposureKey] = []
    /// The key broadcast now.
    package private(set) var tek: TemporaryExposureKey?
    private(set) var currentRPI: Bytes16?
    package private(set) var rotations = 0
    private(set) var nextRotation: MonotonicInstant?
    /// When the RPI on air now went on air (`status` shows its age).
    private(set) var lastRotation: MonotonicInstant?
    /// Why the badge is not broadcasting although it should: the day's new key could not be stored. Nil
    /// once a key is on disk again.
    private(set) var keyStorageError: SystemError?

    init(loop: any EventLoop, clock: Clock, radio: GAENRadio, schedule: KeySchedule, settings: Settings = Settings(),
                generator: ServiceRandom = .system, keyFile: KeyFile? = nil,
                log: Logger) {
        precondition(settings.rotationMin <= settings.rotationMax && settings.rotationMax <= .seconds(1200),
                     "rotation bounds must lie within 20 minutes")
        self.loop = loop
        self.clock = clock
        self.radio = radio
        self.schedule = schedule
        self.settings = settings
        self.generator = generator
        self.keyFile = keyFile
        self.log = log
        // Keys survive restarts: a reboot mid-day keeps broadcasting under the day's key.
        if let keyFile, let text = TextFile.read(keyFile.path) {
            keys = KeyFile.parse(text).sorted { $0.rollingStart < $1.rollingStart }
        }
    }

    package private(set) var isRunning = false

    package func start() {
        isRunning = true
        rotate()
    }

    package func stop() {
        isRunning = false
        keyStorageError = nil
        if let rotationTimer { loop.cancel(rotationTimer) }
        rotationTimer = nil
        nextRotation = nil
        lastRotation = nil
        radio.stopBroadcasting()
    }

    /// Deletes every own key (the console's `wipe`). A running advertiser at once makes, stores and broadcasts
    /// a fresh key, under a fresh address: nothing on air links back to the deleted keys.
    func removeAllKeys() throws(SystemError) {
        try keyFile?.save([])
        keys = []
        tek = nil
        if isRunning { rotate() }
    }

    /// Deletes the keys whose validity ended more than 14 days before `interval`; called only while the clock
    /// permits deletion. A failure keeps them for the next round.
    func removeExpiredKeys(at interval: ENIntervalNumber) {
        let kept = KeyFile.retained(keys, at: interval)
        guard kept.count < keys.count else { return }
        do {
            try keyFile?.save(kept)
            log.info("keys: removed \(keys.count - kept.count) older than 14 days")
            keys = kept
        } catch {
            log.error(.retentionFailed, "cannot remove keys older than 14 days: \(error)")
        }
    }

    /// Changes RPI and address now, then schedules the next rotation.
    package func rotate() {
        guard let interval = clock.interval else {
            log.error("the wall clock is before 1970: not advertising")
            return
        }
        // After a backward clock jump an earlier day's stored key is valid again: reuse it, never make two
        // keys for one day.
        if let stored = keys.last(where: { $0.isValid(at: interval) }) {
            tek = stored
        } else {
            let fresh = TemporaryExposureKey.generate(for: interval, using: &generator)
            // Old keys stay: deleting them is the housekeeping's job, and only while the clock permits.
            let kept = (keys + [fresh]).sorted { $0.rollingStart < $1.rollingStart }
            do {
                // Durable before its first RPI goes on air, or not on air at all.
                try keyFile?.save(kept)
            } catch {
                if keyStorageError != error { log.error(.keysUnwritable, "cannot store the new exposure key, not advertising: \(error)") }
                keyStorageError = error
                tek = nil
                radio.stopBroadcasting()
                scheduleNextRotation()
                return
            }
            if keyStorageError != nil { log.info("the new exposure key is stored: advertising again") }
            keyStorageError = nil
            keys = kept
            tek = fresh
            log.info("new temporary exposure key for the day starting at interval \(interval.dayStart)")
        }
        guard let tek else { return }
        let rpi = schedule.rpi(rpik: schedule.rpik(tek.keyData), interval: interval)
        // TX power at the antenna as the board profile declares it, else the controller's report, so receivers
        // compute attenuation from what this badge really sends, and how well the board profile says that
        // figure is known (metadata v1.1).
        let metadata = Metadata(txPower: settings.txPower ?? radio.driver.info.advertisingTxPower ?? 0,
                                calibrationConfidence: settings.calibrationConfidence).plaintext
        let aem = schedule.aem(aemk: schedule.aemk(tek.keyData), rpi: rpi, metadata)
        radio.broadcast(AdvertisingPayload(rpi: rpi, aem: aem), address: address(for: tek, at: interval))
        currentRPI = rpi
        lastRotation = loop.now
        rotations += 1
        log.debug("rotated: interval \(interval)")  // never the address or the RPI: logs leave the device

        scheduleNextRotation()
    }

    /// The non-resolvable private address of `tek`'s RPI for `interval`.
    private func address(for tek: TemporaryExposureKey, at interval: ENIntervalNumber) -> BDAddress {
        // Six bytes are 2^-45 likely to be a forbidden all-zero or all-one pattern; the next interval's
        // bits, never on air with this RPI, stand in.
        var n = interval
        while true {
            if let address = BDAddress.nonResolvablePrivate(bits: schedule.addressBits(tek: tek.keyData, interval: n)) {
                return address
            }
            n = ENIntervalNumber(n.value &+ 1)
        }
    }

    private func scheduleNextRotation() {
        if let rotationTimer { loop.cancel(rotationTimer) }
        let span = settings.rotationMax - settings.rotationMin
        let nanos = span.nanosecondsValue > 0 ? Int64.random(in: 0..<span.nanosecondsValue, using: &generator) : 0
        let delay = settings.rotationMin + .nanoseconds(nanos)
        nextRotation = loop.now + delay
        rotationTimer = loop.schedule(after: delay) { self.rotate() }
    }
}
