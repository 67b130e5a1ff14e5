import ENCore
import EventLoop

/// The agent's only reader of the wall clock. It knows whether the time can be trusted and notices
/// when the wall clock jumps relative to the monotonic clock.
///
/// Without trust the badge neither advertises nor scans: RPIs derived from a wrong date would be
/// unmatchable, and a Raspberry Pi boots in 1970 or at its last shutdown until NTP answers. Trust comes
/// from NTP (kernel flag or timesyncd marker, polled), from an RTC board, from a board that declares it,
/// or from the operator (`time trust`, for boards with neither; kept until the agent restarts).
/// A jump (realtime and monotonic progress disagreeing by more than `jumpThreshold`) is reported to
/// `onJump`: the agent rotates at once and re-evaluates its TEK.
///
/// Time never destroys data: what is older than 14 days is deleted only while `permitsDeletion` — the clock
/// trusted and steady for `steadyPeriod`. A jump larger than `maximumJump` (a bad NTP answer, a typo, an RTC
/// that reset) could otherwise make two weeks of keys and sightings look expired in one step; it holds all
/// deletion until someone confirms the time (`time trust`, `time set`) or NTP has kept it synchronised for
/// `steadyPeriod` since.
package final class Clock {
    package enum Trust: Equatable, Sendable, CustomStringConvertible {
        case trusted(String)
        case untrusted(String)

        package var isTrusted: Bool { if case .trusted = self { true } else { false } }
        package var description: String {
            switch self {
            case .trusted(let why): "trusted (\(why))"
            case .untrusted(let why): "not trusted: \(why)"
            }
        }
    }

    static let jumpThreshold: Duration = .seconds(2)
    static let checkInterval: Duration = .seconds(10)
    /// How long the clock must run without a jump (and, after a large one, with NTP synchronised) before
    /// anything is deleted for its age.
    static let steadyPeriod: Duration = .seconds(3600)

    package private(set) var trust: Trust
    package private(set) var jumps = 0
    /// The wall-clock time just after the last jump; nil when the clock has not jumped since the agent started.
    package private(set) var lastJumpUnixSeconds: Int64?
    /// Jumps larger than this hold deletion until the time is confirmed (`clock.max_jump_minutes`).
    package var maximumJump: Duration = .seconds(3600)
    /// A large jump not yet confirmed: its size, and when it happened (loop time).
    private(set) var unconfirmedJump: (size: Duration, at: MonotonicInstant)?
    /// The last jump of any size (loop time); nil when there was none.
    private var lastJump: MonotonicInstant?
    /// Since when NTP has said synchronised without interruption (loop time); nil while it does not.
    private var synchronisedSince: MonotonicInstant?
    /// Called once when the clock becomes trusted.
    package var onTrusted: () -> Void = {}
    /// Called with the size of each jump (positive: the wall clock moved forward).
    package var onJump: (Duration) -> Void = { _ in }

    private let loop: any EventLoop
    private let probe: any ClockSyncProbe
    private let log: Logger
    private var reference: (monotonic: MonotonicInstant, wall: Int64)
    private var timer: TimerHandle?

    package init(loop: any EventLoop, policy: ClockPolicy, probe: any ClockSyncProbe = SystemClockSyncProbe(), log: Logger) {
        self.loop = loop
        self.probe = probe
        self.log = log
        reference = (loop.now, loop.unixNanoseconds)
        switch policy {
        case .rtc: trust = .trusted("the board has a real-time clock")
        case .trusted: trust = .trusted("declared by the board profile")
        case .ntp:
            if let reason = probe.unsynchronisedReason() { trust = .untrusted(reason) } else { trust = .trusted("NTP-synchronised") }
        }
    }

    package var isTrusted: Bool { trust.isTrusted }
    /// The system says NTP keeps the wall clock right now (whatever the board's policy).
    package var isNTPSynchronised: Bool { probe.unsynchronisedReason() == nil }
    package var unixNanoseconds: Int64 { loop.unixNanoseconds }
    package var unixSeconds: Int64 { loop.unixNanoseconds / 1_000_000_000 }
    package var interval: ENIntervalNumber? { ENIntervalNumber(unixSeconds: unixSeconds) }

    /// Whether data may be deleted for its age now; when not, `deletionHold` says why.
    var permitsDeletion: Bool { deletionHold == nil }

    /// Why nothing may be deleted for its age now, in words for `status` and the log; nil when it may.
    package var deletionHold: String? {
        guard isTrusted else { return "the clock is not trusted" }
        if let jump = unconfirmedJump {
            return "the clock jumped \(Self.words(jump.size)) at \(UTCDateTime(unixSeconds: unixSeconds - (loop.now - jump.at).components.seconds)); "
                + "confirm the time with time trust (or time set), or wait for NTP to keep it for an hour"
        }
        if let lastJump, loop.now - lastJump < Self.steadyPeriod {
            return "the clock jumped \(Self.words(loop.now - lastJump, signed: false)) ago; waiting for it to stay steady for an hour"
        }
        return nil
    }

    package func start() {
        if !isTrusted { log.warn(.clockUntrusted, "not advertising or scanning until the clock is trustworthy: \(trust)") }
        scheduleCheck()
    }

    package func stop() {
        if let timer { loop.cancel(timer) }
        timer = nil
    }

    /// The operator vouches for the current time (`time trust`): trusted, and a large jump confirmed.
    package func trustByOperator() {
        confirmJump(by: "the operator")
        becomeTrusted("set or confirmed by the operator")
    }

    /// The operator sets the time (`time set`): the wall clock moves, the jump is handled as any other
    /// (rotation, key re-evaluation), and the clock is trusted from then on.
    package func set(unixSeconds: Int64) throws(WallClockError) {
        try loop.setWallClock(unixNanoseconds: unixSeconds * 1_000_000_000)
        check()
        // The operator typed the time: the jump it made is the one they meant.
        confirmJump(by: "the operator")
        if isTrusted {
            log.info("clock set by the operator: \(UTCDateTime(unixSeconds: unixSeconds))")
        } else {
            becomeTrusted("set by the operator")
        }
    }

    /// Re-reads the sync state and looks for a jump now (also done every `checkInterval`).
    package func check() {
        let now = loop.now
        let wall = loop.unixNanoseconds
        let expected = reference.wall + (now - reference.monotonic).nanosecondsValue
        let offset = wall - expected
        reference = (now, wall)
        let synchronised = isNTPSynchronised
        if synchronised { synchronisedSince = synchronisedSince ?? now } else { synchronisedSince = nil }
        if abs(offset) > Self.jumpThreshold.nanosecondsValue {
            jumps += 1
            lastJump = now
            lastJumpUnixSeconds = wall / 1_000_000_000
            let jump = Duration.nanoseconds(offset)
            log.warn(.clockJumped, "wall clock jumped \(Self.words(jump)) (now \(UTCDateTime(unixSeconds: wall / 1_000_000_000)))")
            if isTrusted, abs(offset) > maximumJump.nanosecondsValue {
                unconfirmedJump = (jump, now)
                // NTP must agree from here on, not from before the jump.
                synchronisedSince = synchronised ? now : nil
                log.warn("deleting old keys, sightings and exposures is suspended: the jump is larger than "
                         + "\(Self.words(maximumJump)); confirm the time with time trust, or wait for NTP to keep it for an hour")
            }
            onJump(jump)
        }
        if unconfirmedJump != nil, let since = synchronisedSince, now - since >= Self.steadyPeriod {
            confirmJump(by: "NTP, synchronised for an hour")
        }
        if !isTrusted, synchronised { becomeTrusted("NTP-synchronised") }
    }

    private func confirmJump(by whom: String) {
        guard unconfirmedJump != nil else { return }
        unconfirmedJump = nil
        lastJump = nil
        log.info("clock confirmed by \(whom): deleting data older than 14 days resumes")
    }

    /// "+15 d 0 h", "-1 h 0 min", "+3 s": a jump's size for people (without the sign: how long ago).
    static func words(_ d: Duration, signed: Bool = true) -> String {
        let (seconds, attoseconds) = d.components
        let sign = signed ? (seconds < 0 || attoseconds < 0 ? "-" : "+") : ""
        // Rounded to the nearest unit shown: a jump of +15 days is measured a hair short of it (the
        // monotonic clock moved on while the wall clock was read) and must not read "+14 d 23 h".
        let milliseconds = abs(seconds) * 1000 + abs(attoseconds) / 1_000_000_000_000_000
        for (large, largeName, small, smallName) in [(Int64(86_400), "d", Int64(3600), "h"), (3600, "h", 60, "min"),
                                                     (60, "min", 1, "s")] {
            let rounded = (milliseconds + small * 500) / (small * 1000) * small
            if rounded >= large { return "\(sign)\(rounded / large) \(largeName) \(rounded % large / small) \(smallName)" }
        }
        return "\(sign)\((milliseconds + 500) / 1000) s"
    }

    private func becomeTrusted(_ why: String) {
        guard !isTrusted else { return }
        trust = .trusted(why)
        reference = (loop.now, loop.unixNanoseconds)
        log.info("clock trusted (\(why)): \(UTCDateTime(unixSeconds: unixSeconds))")
        onTrusted()
    }

    private func scheduleCheck() {
        timer = loop.schedule(after: Self.checkInterval) { [self] in
            self.check()
            self.scheduleCheck()
        }
    }
}
