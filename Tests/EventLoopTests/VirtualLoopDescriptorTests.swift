import EventLoop
import Glibc
import Testing

/// Real descriptors on the virtual loop: while one is watched, virtual time passes as real time does, so
/// a simulated badge waits for a local server as a real one would; once none is, time jumps again.
@Suite struct VirtualLoopDescriptorTests {
    @Test func dataAlreadyWaitingIsServedAtOnce() {
        let loop = VirtualLoop()
        let pipe = TestPipe()
        defer { pipe.closeReadEnd(); pipe.closeWriteEnd() }
        pipe.write("hello")
        var got: [(String, MonotonicInstant)] = []
        var watch: WatchHandle?
        watch = loop.watch(fd: pipe.readEnd, for: .readable) { _ in
            got.append((pipe.readAvailable().text, loop.now))
            loop.unwatch(watch!)
        }
        var timerFiredAt: MonotonicInstant?
        loop.schedule(after: .seconds(3600)) { timerFiredAt = loop.now }
        loop.run(for: .seconds(7200))
        #expect(got.map(\.0) == ["hello"])
        #expect((got.first?.1.nanoseconds ?? .max) < 10_000_000, "served at once: only the poll's own real time passed")
        #expect(timerFiredAt == MonotonicInstant(nanoseconds: 3_600_000_000_000), "then the clock jumped as always")
    }

    @Test func whileADescriptorIsWatchedVirtualTimeFollowsRealTime() throws {
        let loop = VirtualLoop()
        // A child that answers after 300 ms of real time, as a slow server would.
        var ends: [Int32] = [-1, -1]
        #expect(pipe(&ends) == 0)
        var pid: pid_t = 0
        let argv: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/sh"), strdup("-c"), strdup("sleep 0.3; echo late"), nil]
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        posix_spawn_file_actions_adddup2(&actions, ends[1], 1)
        posix_spawn_file_actions_addclose(&actions, ends[0])
        #expect(posix_spawn(&pid, "/bin/sh", &actions, nil, argv, environ) == 0)
        posix_spawn_file_actions_destroy(&actions)
        close(ends[1])
        defer { close(ends[0]); var status: Int32 = 0; waitpid(pid, &status, 0) }

        var answeredAt: MonotonicInstant?
        var ticks: [MonotonicInstant] = []
        var watch: WatchHandle?
        watch = loop.watch(fd: ends[0], for: .readable) { _ in
            var buffer = [UInt8](repeating: 0, count: 64)
            _ = buffer.withUnsafeMutableBytes { read(ends[0], $0.baseAddress, $0.count) }
            answeredAt = loop.now
            loop.unwatch(watch!)
        }
        // A timer every 100 ms of virtual time: it fires while the loop waits for the child.
        func tick() {
            ticks.append(loop.now)
            if answeredAt == nil { loop.schedule(after: .milliseconds(100)) { tick() } }
        }
        loop.schedule(after: .milliseconds(100)) { tick() }
        loop.schedule(after: .seconds(86_400)) {}
        loop.run(for: .seconds(86_400 * 2))
        let answer = try #require(answeredAt)
        #expect(answer.nanoseconds >= 250_000_000 && answer.nanoseconds < 5_000_000_000,
                "the answer came after about 300 ms of virtual time: \(answer)")
        #expect(ticks.count >= 2, "timers went on firing meanwhile, at their virtual deadlines")
        #expect(ticks.allSatisfy { $0.nanoseconds % 100_000_000 == 0 })
        #expect(loop.now == MonotonicInstant(nanoseconds: 2 * 86_400_000_000_000), "and jumped to the end once unwatched")
    }

    @Test func aPausedWatchDoesNotHoldTimeBack() {
        let loop = VirtualLoop()
        let pipe = TestPipe()
        defer { pipe.closeReadEnd(); pipe.closeWriteEnd() }
        _ = loop.watch(fd: pipe.readEnd, for: []) { _ in Issue.record("a paused watch is never called") }
        var fired = false
        loop.schedule(after: .seconds(30 * 86_400)) { fired = true }
        loop.run(for: .seconds(31 * 86_400))
        #expect(fired)
    }
}
