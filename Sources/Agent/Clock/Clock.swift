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
public final class Clock {
    public enum Trust: Equatable, Sendable, CustomStringConvertible {
        case trusted(String)
        case untrusted(String)

        public var isTrusted: Bool { if case .trusted = self { true } else { false } }
        public var description: String {
            switch self {
            case .trusted(let why): "trusted (\(why))"
            case .untrusted(let why): "not trusted: \(why)"
            }
        }
    }

    public static let jumpThreshold: Duration = .seconds(2)
    public static let checkInterval: Duration = .seconds(10)

    public private(set) var trust: Trust
    public private(set) var jumps = 0
    /// Called once when the clock becomes trusted.
    public var onTrusted: () -> Void = {}
    /// Called with the size of each jump (positive: the wall clock moved forward).
    public var onJump: (Duration) -> Void = { _ in }

    private let loop: any EventLoop
    private let probe: any ClockSyncProbe
    private let log: Logger
    private var reference: (monotonic: MonotonicInstant, wall: Int64)
    private var timer: TimerHandle?

    public init(loop: any EventLoop, policy: ClockPolicy, probe: any ClockSyncProbe = SystemClockSyncProbe(), log: Logger) {
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

    public var isTrusted: Bool { trust.isTrusted }
    /// The system says NTP keeps the wall clock right now (whatever the board's policy).
    public var isNTPSynchronised: Bool { probe.unsynchronisedReason() == nil }
    public var unixNanoseconds: Int64 { loop.unixNanoseconds }
    public var unixSeconds: Int64 { loop.unixNanoseconds / 1_000_000_000 }
    public var interval: ENIntervalNumber? { ENIntervalNumber(unixSeconds: unixSeconds) }

    public func start() {
        if !isTrusted { log.warn("not advertising or scanning until the clock is trustworthy: \(trust)") }
        scheduleCheck()
    }

    public func stop() {
        if let timer { loop.cancel(timer) }
        timer = nil
    }

    /// The operator vouches for the current time (`time trust`).
    public func trustByOperator() {
        becomeTrusted("set or confirmed by the operator")
    }

    /// The operator sets the time (`time set`): the wall clock moves, the jump is handled as any other
    /// (rotation, key re-evaluation), and the clock is trusted from then on.
    public func set(unixSeconds: Int64) throws(WallClockError) {
        try loop.setWallClock(unixNanoseconds: unixSeconds * 1_000_000_000)
        check()
        if isTrusted {
            log.info("clock set by the operator: \(UTCDateTime(unixSeconds: unixSeconds))")
        } else {
            becomeTrusted("set by the operator")
        }
    }

    /// Re-reads the sync state and looks for a jump now (also done every `checkInterval`).
    public func check() {
        let now = loop.now
        let wall = loop.unixNanoseconds
        let expected = reference.wall + (now - reference.monotonic).nanosecondsValue
        let offset = wall - expected
        reference = (now, wall)
        if abs(offset) > Self.jumpThreshold.nanosecondsValue {
            jumps += 1
            let jump = Duration.nanoseconds(offset)
            log.warn("wall clock jumped by \(jump) (now \(UTCDateTime(unixSeconds: wall / 1_000_000_000)))")
            onJump(jump)
        }
        if !isTrusted, isNTPSynchronised { becomeTrusted("NTP-synchronised") }
    }

    private func becomeTrusted(_ why: String) {
        guard !isTrusted else { return }
        trust = .trusted(why)
        reference = (loop.now, loop.unixNanoseconds)
        log.info("clock trusted (\(why)): \(UTCDateTime(unixSeconds: unixSeconds))")
        onTrusted()
    }

    private func scheduleCheck() {
        timer = loop.schedule(after: Self.checkInterval) { [weak self] in
            guard let self else { return }
            self.check()
            self.scheduleCheck()
        }
    }
}
