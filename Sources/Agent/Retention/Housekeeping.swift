import AgentBase
import ENCore
import EventLoop
import Store

/// Every flush interval: writes the batched sightings (the most a power cut can lose is one interval), and
/// deletes the keys, sightings and exposures that are older than 14 days — but only while the clock
/// permits it (`Clock.permitsDeletion`): time never destroys data.
final class Housekeeping {
    private let loop: any EventLoop
    private let clock: Clock
    private let sightings: SightingRecorder
    private let store: SightingStore
    private let exposures: ExposureLog
    private let advertiser: Advertiser
    private let interval: Duration
    private let log: Logger
    private var timer: TimerHandle?
    /// The hold last logged, so a hold is said once, not every minute.
    private var reportedHold: String?

    init(loop: any EventLoop, clock: Clock, sightings: SightingRecorder, store: SightingStore, exposures: ExposureLog,
         advertiser: Advertiser, interval: Duration, log: Logger) {
        self.loop = loop
        self.clock = clock
        self.sightings = sightings
        self.store = store
        self.exposures = exposures
        self.advertiser = advertiser
        self.interval = interval
        self.log = log
    }

    func start() { schedule() }

    /// Stops the timer and does one last round.
    func stop() {
        if let timer { loop.cancel(timer) }
        timer = nil
        run()
    }

    /// Deletes what is expired (if the clock permits), then writes the sightings.
    func run() {
        removeExpired()
        sightings.flush()
    }

    private func removeExpired() {
        if let hold = clock.deletionHold {
            if hold != reportedHold, clock.isTrusted { log.info("not deleting old data: \(hold)") }
            reportedHold = hold
            return
        }
        reportedHold = nil
        let now = clock.unixSeconds
        do { try store.prune(now: now) } catch {
            log.error(.retentionFailed, "cannot remove sightings older than 14 days: \(error)")
        }
        do {
            let removed = try exposures.prune(today: UTCDay(unixSeconds: now))
            if removed > 0 { log.info("exposures: removed \(removed) older than 14 days") }
        } catch {
            log.error(.retentionFailed, "cannot remove exposures older than 14 days: \(error)")
        }
        if let interval = clock.interval { advertiser.removeExpiredKeys(at: interval) }
    }

    private func schedule() {
        timer = loop.schedule(after: interval) { [self] in
            run()
            schedule()
        }
    }
}
