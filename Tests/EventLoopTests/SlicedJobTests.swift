import Testing
import EventLoop

@Suite struct SlicedJobTests {
    @Test func aTimerDueMeanwhileFiresBeforeTheJobCompletesInVirtualTime() {
        let loop = VirtualLoop(sliceIterations: 10)
        var log: [String] = []
        var remaining = 35
        let job = SlicedJob.start(on: loop, step: {
            remaining -= 1
            return remaining == 0 ? .done : .more
        }, onFinished: { log.append("job done") })
        loop.schedule(after: .zero) { log.append("timer with \(remaining) units left") }
        #expect(loop.runUntilIdle())
        #expect(log == ["timer with 25 units left", "job done"])
        #expect(job.state == .finished)
        #expect(job.slices == 4)
        #expect(remaining == 0)
        #expect(loop.now == .zero)   // virtual time stands still while working
    }

    @Test func startingNeverRunsWorkInsideTheCaller() {
        let loop = VirtualLoop()
        var steps = 0
        SlicedJob.start(on: loop, step: { steps += 1; return .done })
        #expect(steps == 0)
        #expect(loop.runUntilIdle())
        #expect(steps == 1)
    }

    @Test func cancelStopsFurtherSlicesAndSkipsCompletion() {
        let loop = VirtualLoop(sliceIterations: 5)
        var steps = 0
        var finished = false
        let job = SlicedJob.start(on: loop, step: { steps += 1; return .more }, onFinished: { finished = true })
        loop.schedule(after: .zero) { job.cancel() }
        #expect(loop.runUntilIdle())
        #expect(steps == 5)
        #expect(job.state == .cancelled)
        #expect(!finished)
        job.cancel()   // twice is fine
        #expect(job.state == .cancelled)
    }

    @Test func aJobMayCancelItselfFromItsOwnStep() {
        let loop = VirtualLoop(sliceIterations: 100)
        var steps = 0
        var job: SlicedJob?
        job = SlicedJob.start(on: loop, step: {
            steps += 1
            if steps == 7 { job?.cancel() }
            return .more
        })
        #expect(loop.runUntilIdle())
        #expect(steps == 7)
        #expect(job?.state == .cancelled)
    }

    @Test func interleavesWithATimerOnTheRealLoop() {
        let loop = PollLoop()
        var log: [String] = []
        var remaining = 50
        SlicedJob.start(on: loop, budget: .iterations(1), step: {
            remaining -= 1
            return remaining == 0 ? .done : .more
        }, onFinished: { log.append("job done") })
        loop.schedule(after: .zero) { log.append("timer") }
        loop.run()
        #expect(log == ["timer", "job done"])
    }

    /// With a time budget, a slice ends once that much loop time has passed: steps that each take
    /// at least a millisecond, under a 2 ms budget, can do at most two per slice.
    @Test func aTimeBudgetSplitsTheWorkOnTheRealLoop() {
        let loop = PollLoop(sliceBudget: .duration(.milliseconds(2)))
        var remaining = 10
        var timerFiredWithUnitsLeft: Int?
        let job = SlicedJob.start(on: loop, step: { [unowned loop] in
            let start = loop.now
            while loop.now - start < .milliseconds(1) {}   // a unit of work of at least 1 ms
            remaining -= 1
            return remaining == 0 ? .done : .more
        })
        loop.schedule(after: .zero) { timerFiredWithUnitsLeft = remaining }
        loop.run()
        #expect(remaining == 0)
        #expect(job.state == .finished)
        #expect(job.slices >= 5)
        #expect((timerFiredWithUnitsLeft ?? 0) >= 8)
    }
}
