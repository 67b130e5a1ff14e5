import Testing
@testable import EventLoop

@Suite struct MonotonicInstantTests {
    @Test func arithmeticWithDurations() {
        let start = MonotonicInstant(nanoseconds: 1_000)
        #expect((start + .microseconds(2)).nanoseconds == 3_000)
        #expect((start - .nanoseconds(400)).nanoseconds == 600)
        #expect((start + .seconds(1)) - start == .seconds(1))
        #expect(start - (start + .milliseconds(5)) == .milliseconds(-5))
        var moving = start
        moving += .nanoseconds(1)
        moving -= .nanoseconds(2)
        #expect(moving.nanoseconds == 999)
        #expect(start.advanced(by: .seconds(2)) == start + .seconds(2))
        #expect(start.duration(to: start + .seconds(3)) == .seconds(3))
    }

    @Test func orderingFollowsNanoseconds() {
        #expect(MonotonicInstant(nanoseconds: -1) < .zero)
        #expect(MonotonicInstant.zero < MonotonicInstant(nanoseconds: 1))
        #expect(max(MonotonicInstant(nanoseconds: 7), MonotonicInstant(nanoseconds: 3)).nanoseconds == 7)
    }

    @Test func arithmeticSaturatesInsteadOfTrapping() {
        let late = MonotonicInstant(nanoseconds: .max - 10)
        #expect((late + .seconds(1)).nanoseconds == .max)
        #expect((MonotonicInstant.zero + .seconds(Int64.max)).nanoseconds == .max)
        let early = MonotonicInstant(nanoseconds: .min + 10)
        #expect((early - .seconds(1)).nanoseconds == .min)
        #expect(MonotonicInstant(nanoseconds: .max) - MonotonicInstant(nanoseconds: .min) == .nanoseconds(Int64.max))
    }

    @Test func durationConversionTruncatesTowardZero() {
        #expect(Duration.nanoseconds(-1).nanosecondsValue == -1)
        #expect((Duration.nanoseconds(3) / 2).nanosecondsValue == 1)
        #expect((Duration.nanoseconds(-3) / 2).nanosecondsValue == -1)
        #expect(Duration.seconds(600).nanosecondsValue == 600_000_000_000)
    }

    @Test func descriptionShowsSeconds() {
        #expect(MonotonicInstant(nanoseconds: 12_000_000_345).description == "12.000000345s")
        #expect(MonotonicInstant(nanoseconds: -1_500_000_000).description == "-1.500000000s")
    }
}
