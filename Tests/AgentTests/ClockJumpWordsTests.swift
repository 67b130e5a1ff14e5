@testable import Agent
@testable import AgentBase
import Testing

/// How a clock jump reads in the log and in `time`: rounded to the nearest unit shown, since a jump is
/// measured a little short of what the clock was set by (the monotonic clock moves on meanwhile).
@Suite struct ClockJumpWordsTests {
    @Test func jumpsReadAsTheyWereMadeNotRoundedDown() {
        #expect(Clock.words(.seconds(15 * 86_400) - .milliseconds(3)) == "+15 d 0 h")
        #expect(Clock.words(.seconds(-3600) + .milliseconds(3)) == "-1 h 0 min")
        #expect(Clock.words(.seconds(3599) + .milliseconds(600)) == "+1 h 0 min", "rounding up moves to the next unit")
        #expect(Clock.words(.seconds(90 * 60 + 29)) == "+1 h 30 min")
        #expect(Clock.words(.seconds(90 * 60 + 31)) == "+1 h 31 min")
        #expect(Clock.words(.seconds(-(2 * 86_400 + 5 * 3600 + 1799))) == "-2 d 5 h")
        #expect(Clock.words(.seconds(61) + .milliseconds(499)) == "+1 min 1 s")
        #expect(Clock.words(.milliseconds(2_500)) == "+3 s")
        #expect(Clock.words(.milliseconds(-2_400)) == "-2 s")
        #expect(Clock.words(.seconds(7200), signed: false) == "2 h 0 min")
    }
}
