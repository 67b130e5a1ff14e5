import Glibc
import Testing
import EventLoop

@Suite struct PollLoopTests {
    @Test func readableCallbackDeliversDataThenHangupAtEndOfFile() {
        let loop = PollLoop()
        let pipe = TestPipe()
        var received = ""
        var events: [FDReadiness] = []
        var watch: WatchHandle?
        watch = loop.watch(fd: pipe.readEnd, for: .readable) { [unowned loop] readiness in
            events.append(readiness)
            let (text, endOfFile) = pipe.readAvailable()
            received += text
            if text == "hello" {
                // The peer finishes; the next poll reports the hangup.
                pipe.closeWriteEnd()
            }
            if endOfFile {
                // Closing our own descriptor inside its handler is allowed once it is unwatched.
                loop.unwatch(watch!)
                pipe.closeReadEnd()
            }
        }
        pipe.write("hello")
        loop.run()   // returns by itself: nothing is left to wait for
        #expect(received == "hello")
        #expect(events.first == .readable)
        #expect(events.last?.contains(.hangup) == true)
        #expect(events.count == 2)
    }

    @Test func timersFireInDeadlineOrderAndNeverEarly() {
        let loop = PollLoop()
        let start = loop.now
        var order: [String] = []
        var lateness: [Bool] = []
        for (name, milliseconds) in [("third", 6), ("first", 2), ("second", 4)] as [(String, Int64)] {
            let deadline = start + .milliseconds(milliseconds)
            loop.schedule(at: deadline) { [unowned loop] in
                order.append(name)
                lateness.append(loop.now >= deadline)
            }
        }
        loop.run()
        #expect(order == ["first", "second", "third"])
        #expect(lateness == [true, true, true])
        #expect(loop.now - start >= .milliseconds(6))
    }

    @Test func sameDeadlineTimersFireInSchedulingOrder() {
        let loop = PollLoop()
        let deadline = loop.now + .milliseconds(1)
        var order: [Int] = []
        for index in 0..<10 { loop.schedule(at: deadline) { order.append(index) } }
        loop.run()
        #expect(order == Array(0..<10))
    }

    @Test func zeroDelayTimerRunsAfterDueWorkAndNotReentrantly() {
        let loop = PollLoop()
        var order: [String] = []
        let deadline = loop.now
        loop.schedule(at: deadline) { [unowned loop] in
            loop.schedule(after: .zero) { order.append("zero-delay") }
            order.append("first")
        }
        loop.schedule(at: deadline) { order.append("second") }
        loop.run()
        #expect(order == ["first", "second", "zero-delay"])
    }

    @Test func cancellingATimerDueInTheSameTickFromACallback() {
        let loop = PollLoop()
        let deadline = loop.now + .milliseconds(1)
        var order: [String] = []
        var victim: TimerHandle?
        loop.schedule(at: deadline) { [unowned loop] in
            order.append("canceller")
            loop.cancel(victim!)
        }
        victim = loop.schedule(at: deadline) { order.append("victim") }
        loop.schedule(at: deadline) { order.append("bystander") }
        loop.run()
        #expect(order == ["canceller", "bystander"])
    }

    @Test func stopEndsRunAndTheNextRunResumes() {
        let loop = PollLoop()
        var order: [String] = []
        loop.schedule(after: .milliseconds(1)) { [unowned loop] in order.append("stopper"); loop.stop() }
        loop.schedule(after: .milliseconds(50)) { order.append("later") }
        // A descriptor that never becomes ready keeps the loop from running out of work.
        let pipe = TestPipe()
        defer { pipe.closeReadEnd(); pipe.closeWriteEnd() }
        let idle = loop.watch(fd: pipe.readEnd, for: .readable) { _ in }
        loop.run()
        #expect(order == ["stopper"])
        loop.schedule(after: .milliseconds(1)) { [unowned loop] in loop.unwatch(idle) }
        loop.run()
        #expect(order == ["stopper", "later"])
    }

    @Test func stopBeforeRunMakesRunReturnAtOnce() {
        let loop = PollLoop()
        var fired = false
        loop.schedule(after: .zero) { fired = true }
        loop.stop()
        loop.run()
        #expect(!fired)
        loop.run()
        #expect(fired)
    }

    /// One handler removes another watch that was reported ready in the same poll, closes its
    /// descriptor and watches a fresh pipe that may reuse the number: neither the removed watch nor
    /// the newcomer may be called with the stale readiness.
    @Test func handlersMayUnwatchAndCloseOtherReadyDescriptors() {
        let loop = PollLoop()
        let first = TestPipe()
        let second = TestPipe()
        var calls: [String] = []
        var secondWatch: WatchHandle?
        var replacement: TestPipe?
        var firstWatch: WatchHandle?
        firstWatch = loop.watch(fd: first.readEnd, for: .readable) { [unowned loop] _ in
            calls.append("first")
            _ = first.readAvailable()
            loop.unwatch(firstWatch!)
            loop.unwatch(secondWatch!)
            second.closeReadEnd()
            let fresh = TestPipe()
            replacement = fresh
            _ = loop.watch(fd: fresh.readEnd, for: .readable) { _ in calls.append("replacement") }
            // End the test on the next iteration, after any (wrong) stale dispatch would have happened.
            loop.schedule(after: .zero) { loop.stop() }
        }
        secondWatch = loop.watch(fd: second.readEnd, for: .readable) { _ in calls.append("second") }
        first.write("x")
        second.write("y")
        loop.run()
        #expect(calls == ["first"])
        first.closeReadEnd(); first.closeWriteEnd(); second.closeWriteEnd()
        replacement?.closeReadEnd(); replacement?.closeWriteEnd()
    }

    @Test func writableInterestCanBeSwitchedOnAndOff() {
        let loop = PollLoop()
        let pipe = TestPipe()
        defer { pipe.closeReadEnd(); pipe.closeWriteEnd() }
        var writableCalls = 0
        var outputQueue = ["a", "b", "c"]
        var watch: WatchHandle?
        watch = loop.watch(fd: pipe.writeEnd, for: []) { [unowned loop] readiness in
            #expect(readiness.contains(.writable))
            writableCalls += 1
            pipe.write(outputQueue.removeFirst())
            if outputQueue.isEmpty {
                loop.update(watch!, interest: [])
                // Nothing would ever call back again; give the loop a way out.
                loop.schedule(after: .milliseconds(2)) { loop.stop() }
            }
        }
        // A paused watch is not polled; output arriving later switches writing on.
        loop.schedule(after: .milliseconds(1)) { [unowned loop] in loop.update(watch!, interest: .writable) }
        loop.run()
        #expect(writableCalls == 3)
        #expect(pipe.readAvailable().text == "abc")
    }

    @Test func aDescriptorClosedWithoutUnwatchingIsReportedOnceAndDropped() {
        let loop = PollLoop()
        let pipe = TestPipe()
        // A high-numbered copy: the kernel hands out the lowest free number, so while the other
        // tests run in parallel and open descriptors, nobody reuses this one after we close it.
        let fd = fcntl(pipe.readEnd, F_DUPFD, 500)
        #expect(fd >= 500)
        pipe.closeReadEnd()
        pipe.closeWriteEnd()
        var reports: [FDReadiness] = []
        _ = loop.watch(fd: fd, for: .readable) { readiness in reports.append(readiness) }
        close(fd)
        loop.run()   // returns: the dropped watch was the only thing left
        #expect(reports == [.invalid])
    }

    @Test func aBusyDescriptorDoesNotStarveTimersOrOtherDescriptors() {
        let loop = PollLoop()
        let busy = TestPipe()
        let quiet = TestPipe()
        defer { busy.closeReadEnd(); busy.closeWriteEnd(); quiet.closeReadEnd(); quiet.closeWriteEnd() }
        var busyCalls = 0
        var log: [String] = []
        // Never drained, so it is ready on every single iteration.
        busy.write("always ready")
        _ = loop.watch(fd: busy.readEnd, for: .readable) { _ in busyCalls += 1 }
        _ = loop.watch(fd: quiet.readEnd, for: .readable) { _ in
            _ = quiet.readAvailable()
            log.append("quiet at busy call \(busyCalls)")
        }
        loop.schedule(after: .milliseconds(2)) { [unowned loop] in
            log.append("timer")
            quiet.write("q")
            loop.schedule(after: .milliseconds(2)) { loop.stop() }
        }
        loop.run()
        #expect(log.first == "timer")
        #expect(log.count == 2)
        #expect(busyCalls > 1)
    }

    @Test func runReturnsWhenNothingIsLeftToWaitFor() {
        let loop = PollLoop()
        loop.run()
        var fired = 0
        loop.schedule(after: .zero) { fired += 1 }
        loop.run()
        #expect(fired == 1)
    }

    @Test func wallClockIsRealtime() {
        let loop = PollLoop()
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        let before = Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
        #expect(loop.unixNanoseconds >= before)
        #expect(loop.defaultSliceBudget == .duration(.milliseconds(5)))
    }
}
