import CLinux

/// CLOCK_MONOTONIC and CLOCK_REALTIME in nanoseconds, 64-bit on every target (a 32-bit `Int` would
/// overflow a nanosecond count after 2 s).
public enum KernelClock {
    public static func monotonicNanoseconds() -> Int64 { read(CLOCK_MONOTONIC) }

    public static func realtimeNanoseconds() -> Int64 { read(CLOCK_REALTIME) }

    /// CPU time the calling thread has used: a benchmark's clock that a neighbour's load does not move.
    public static func threadCPUNanoseconds() -> Int64 { read(CLOCK_THREAD_CPUTIME_ID) }

    /// Sets CLOCK_REALTIME (needs CAP_SYS_TIME).
    public static func setRealtime(nanoseconds: Int64) throws(SystemError) {
        var time = timespec()
        time.tv_sec = .init(nanoseconds / 1_000_000_000)
        time.tv_nsec = .init(nanoseconds % 1_000_000_000)
        guard clock_settime(CLOCK_REALTIME, &time) == 0 else { throw .last("clock_settime") }
    }

    /// Whether the kernel's NTP state (adjtimex, read-only) says the wall clock is synchronised.
    public static func kernelSaysSynchronised() -> Bool {
        var unsynchronised: Int32 = 1
        let state = enb_clock_sync_state(&unsynchronised)
        return state >= 0 && state != TIME_ERROR && unsynchronised == 0
    }

    private static func read(_ clock: clockid_t) -> Int64 {
        var time = timespec()
        // Cannot fail for these clock ids with a valid pointer.
        _ = clock_gettime(clock, &time)
        return Int64(time.tv_sec) &* 1_000_000_000 &+ Int64(time.tv_nsec)
    }
}
