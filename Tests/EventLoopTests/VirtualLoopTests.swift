import Testing
import EventLoop

@Suite struct VirtualLoopTests {
    private func seconds(_ value: Int64) -> MonotonicInstant { .zero + .seconds(value) }

    @Test func timeJumpsExactlyToEachDeadline() {
        let loop = VirtualLoop()
        var fired: [(String, MonotonicInstant)] = []
        loop.schedule(after: .seconds(90)) { fired.append(("late", loop.now)) }
        loop.schedule(after: .milliseconds(1_500)) { fired.append(("early", loop.now)) }
        loop.schedule(at: seconds(30)) { fired.append(("middle", loop.now)) }
        #expect(loop.nextDeadline == MonotonicInstant(nanoseconds: 1_500_000_000))
        #expect(loop.runUntilIdle())
        #expect(fired.map(\.0) == ["early", "middle", "late"])
        #expect(fired.map(\.1) == [MonotonicInstant(nanoseconds: 1_500_000_000), seconds(30), seconds(90)])
        #expect(loop.now == seconds(90))
        #expect(loop.steps == 3)
    }

    @Test func sameInstantTimersFireInSchedulingOrder() {
        let loop = VirtualLoop()
        var order: [Int] = []
        for index in 0..<20 {
            loop.schedule(at: seconds(index % 2 == 0 ? 5 : 3)) { order.append(index) }
        }
        #expect(loop.runUntilIdle())
        #expect(order == Array(stride(from: 1, to: 20, by: 2)) + Array(stride(from: 0, to: 20, by: 2)))
    }

    @Test func zeroDelayRunsAfterWorkAlreadyDueAndNeverReentrantly() {
        let loop = VirtualLoop()
        var order: [String] = []
        loop.schedule(at: seconds(1)) {
            loop.schedule(after: .zero) { order.append("zero-delay") }
            loop.schedule(at: seconds(-5)) { order.append("past deadline") }
            order.append("first")
        }
        loop.schedule(at: seconds(1)) { order.append("second") }
        #expect(loop.runUntilIdle())
        #expect(order == ["first", "second", "zero-delay", "past deadline"])
        #expect(loop.now == seconds(1))   // a past deadline never moves time backwards
    }

    @Test func cancellingATimerDueInTheSameTickFromACallback() {
        let loop = VirtualLoop()
        var order: [String] = []
        var victim: TimerHandle?
        loop.schedule(at: seconds(2)) {
            order.append("canceller")
            if let victim { loop.cancel(victim) }
        }
        victim = loop.schedule(at: seconds(2)) { order.append("victim") }
        loop.schedule(at: seconds(2)) { order.append("bystander") }
        #expect(loop.runUntilIdle())
        #expect(order == ["canceller", "bystander"])
    }

    @Test func cancellingOwnOrFiredTimersIsHarmless() {
        let loop = VirtualLoop()
        var count = 0
        var own: TimerHandle?
        own = loop.schedule(after: .seconds(1)) {
            count += 1
            if let own { loop.cancel(own) }   // already popped: no-op
        }
        #expect(loop.runUntilIdle())
        if let own { loop.cancel(own) }       // long fired: no-op
        #expect(count == 1)
        #expect(loop.pendingTimerCount == 0)
    }

    @Test func runUntilLeavesTheClockAtTheTargetAndIncludesItsBoundary() {
        let loop = VirtualLoop()
        var fired: [Int64] = []
        for second: Int64 in [10, 20, 30] {
            loop.schedule(at: seconds(second)) { fired.append(second) }
        }
        loop.run(until: seconds(20))
        #expect(fired == [10, 20])
        #expect(loop.now == seconds(20))
        loop.run(for: .seconds(5))
        #expect(loop.now == seconds(25))
        #expect(fired == [10, 20])
        loop.run(until: seconds(1))   // the past: nothing happens, time stays
        #expect(loop.now == seconds(25))
        #expect(loop.step())
        #expect(fired == [10, 20, 30])
        #expect(!loop.step())
    }

    /// A day of 10-minute and 7-minute repeating timers, each rescheduled from its own deadline:
    /// exact counts, exact instants, and no real waiting.
    @Test func simulatedDayOfRepeatingTimers() {
        let loop = VirtualLoop()
        var tenMinuteFirings: [MonotonicInstant] = []
        var sevenMinuteCount = 0

        func repeatEvery(_ interval: Duration, from start: MonotonicInstant, _ body: @escaping () -> Void) {
            loop.schedule(at: start + interval) {
                body()
                repeatEvery(interval, from: start + interval, body)
            }
        }
        repeatEvery(.seconds(600), from: loop.now) { tenMinuteFirings.append(loop.now) }
        repeatEvery(.seconds(420), from: loop.now) { sevenMinuteCount += 1 }

        loop.run(for: .seconds(86_400))

        #expect(tenMinuteFirings.count == 144)
        #expect(tenMinuteFirings == (1...144).map { seconds(Int64($0) * 600) })
        #expect(sevenMinuteCount == 86_400 / 420)
        #expect(loop.steps == 144 + 86_400 / 420)
        #expect(loop.now == seconds(86_400))
        #expect(loop.pendingTimerCount == 2)
        #expect(!loop.runUntilIdle(limit: 10))
        #expect(loop.steps == 144 + 86_400 / 420 + 10)
    }

    @Test func runUntilIdleReportsIdleness() {
        let loop = VirtualLoop()
        #expect(loop.runUntilIdle())
        var remaining = 3
        func chain() {
            remaining -= 1
            if remaining > 0 { loop.schedule(after: .seconds(1), chain) }
        }
        loop.schedule(after: .seconds(1), chain)
        #expect(loop.runUntilIdle())
        #expect(remaining == 0)
        #expect(loop.now == seconds(3))
    }

    @Test func stopEndsTheCurrentRunAtTheStoppingInstant() {
        let loop = VirtualLoop()
        var fired: [Int64] = []
        loop.schedule(at: seconds(1)) { fired.append(1) }
        loop.schedule(at: seconds(2)) { fired.append(2); loop.stop() }
        loop.schedule(at: seconds(2)) { fired.append(22) }
        loop.schedule(at: seconds(3)) { fired.append(3) }
        loop.run(for: .seconds(10))
        #expect(fired == [1, 2])
        #expect(loop.now == seconds(2))
        // The request was consumed; the next run carries on.
        loop.run(for: .seconds(10))
        #expect(fired == [1, 2, 22, 3])
        #expect(loop.now == seconds(12))
    }

    @Test func stopWhileIdleMakesTheNextRunReturnAtOnce() {
        let loop = VirtualLoop()
        var fired = false
        loop.schedule(after: .seconds(1)) { fired = true }
        loop.stop()
        loop.run(for: .seconds(5))
        #expect(!fired)
        #expect(loop.now == .zero)
        #expect(loop.runUntilIdle())
        #expect(fired)
    }

    @Test func wallClockFollowsMonotonicTimeAndJumpsIndependently() {
        let start: Int64 = 1_700_000_000_000_000_000
        let loop = VirtualLoop(startUnixNanoseconds: start)
        #expect(loop.unixNanoseconds == start)
        #expect(VirtualLoop().unixNanoseconds == VirtualLoop.defaultStartUnixNanoseconds)

        var fired: [(monotonic: MonotonicInstant, unix: Int64)] = []
        loop.schedule(at: seconds(60)) { fired.append((loop.now, loop.unixNanoseconds)) }
        loop.schedule(at: seconds(120)) { fired.append((loop.now, loop.unixNanoseconds)) }

        loop.run(for: .seconds(30))
        #expect(loop.unixNanoseconds == start + 30_000_000_000)

        // NTP steps the clock back an hour: monotonic time and timers do not care.
        loop.jumpWallClock(by: .seconds(-3_600))
        #expect(loop.now == seconds(30))
        #expect(loop.unixNanoseconds == start + 30_000_000_000 - 3_600_000_000_000)
        loop.run(for: .seconds(30))
        #expect(fired.count == 1)
        #expect(fired[0].monotonic == seconds(60))
        #expect(fired[0].unix == start + 60_000_000_000 - 3_600_000_000_000)

        // An operator sets the clock forward to a given time.
        let set: Int64 = 1_800_000_000_000_000_000
        loop.setWallClock(unixNanoseconds: set)
        #expect(loop.unixNanoseconds == set)
        #expect(loop.now == seconds(60))
        #expect(loop.runUntilIdle())
        #expect(fired[1].monotonic == seconds(120))
        #expect(fired[1].unix == set + 60_000_000_000)
    }

    @Test func servicesWrittenAgainstTheProtocolRunOnTheVirtualLoop() {
        // A toy service that only knows `any EventLoop`.
        final class Heartbeat {
            private let loop: any EventLoop
            private(set) var beats: [MonotonicInstant] = []
            init(loop: any EventLoop) { self.loop = loop }
            func start() { loop.schedule(after: .seconds(15)) { [self] in beats.append(loop.now); start() } }
        }
        let loop = VirtualLoop()
        let heartbeat = Heartbeat(loop: loop)
        heartbeat.start()
        loop.run(for: .seconds(60))
        #expect(heartbeat.beats == [seconds(15), seconds(30), seconds(45), seconds(60)])
    }

    @Test func identicalScenariosProduceIdenticalTraces() {
        func trace(seed: UInt64) -> [String] {
            var random = SeededGenerator(seed: seed)
            let loop = VirtualLoop()
            var log: [String] = []
            for index in 0..<200 {
                let delay = Duration.milliseconds(Int64.random(in: 0..<50, using: &random))
                loop.schedule(after: delay) {
                    log.append("\(index)@\(loop.now)")
                    if index % 3 == 0 { loop.schedule(after: .zero) { log.append("\(index)+@\(loop.now)") } }
                }
            }
            #expect(loop.runUntilIdle())
            return log
        }
        #expect(trace(seed: 9) == trace(seed: 9))
    }
}
