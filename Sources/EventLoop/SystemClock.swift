import Glibc

/// The kernel clocks behind `PollLoop`. Kept internal so that nothing outside the loop reads real
/// time behind the virtual loop's back.
enum SystemClock {
    static func monotonic() -> MonotonicInstant {
        MonotonicInstant(nanoseconds: read(CLOCK_MONOTONIC))
    }

    static func realtimeNanoseconds() -> Int64 {
        read(CLOCK_REALTIME)
    }

    static func setRealtime(nanoseconds: Int64) throws(WallClockError) {
        var time = timespec(tv_sec: Int(nanoseconds / 1_000_000_000), tv_nsec: Int(nanoseconds % 1_000_000_000))
        guard clock_settime(CLOCK_REALTIME, &time) == 0 else { throw WallClockError(errno: errno) }
    }

    private static func read(_ clock: clockid_t) -> Int64 {
        var time = timespec()
        // Cannot fail for these clock ids with a valid pointer.
        _ = clock_gettime(clock, &time)
        return Int64(time.tv_sec) &* 1_000_000_000 &+ Int64(time.tv_nsec)
    }
}
