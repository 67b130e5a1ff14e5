import Testing
@testable import EventLoop

/// Log rate limiting per kind of message, on virtual time.
@Suite struct LogRateLimiterTests {
    final class Output {
        var lines: [String] = []
    }

    func limiter(on loop: VirtualLoop) -> (LogRateLimiter, Output) {
        let output = Output()
        let limiter = LogRateLimiter(loop: loop) { level, line in output.lines.append("\(level) \(line)") }
        return (limiter, output)
    }

    /// The storm that wrote 1,448 lines in 40 s: five of them, then one line saying how many were left out.
    @Test func aHardwareErrorStormCostsFiveLinesAndOneSummaryAMinute() {
        let loop = VirtualLoop()
        let (limiter, output) = limiter(on: loop)
        let log = Logger(level: .info, sink: limiter.write)
        for n in 0..<1448 {
            loop.schedule(after: .milliseconds(Int64(n) * 40_000 / 1448)) {
                log.warn("re-initialising the controller: hardware error 0x\(String(n % 7 + 1, radix: 16))")
            }
        }
        loop.schedule(after: .seconds(10)) { log.info("scan heard 3 GAEN beacon(s)") }
        loop.run(for: .seconds(59))
        #expect(output.lines.count == 6, "\(output.lines)")
        #expect(output.lines.prefix(5).allSatisfy { $0.hasPrefix("warn re-initialising the controller: hardware error 0x") })
        #expect(output.lines.last == "info scan heard 3 GAEN beacon(s)", "another kind is not held back")
        #expect(limiter.pendingSuppressed == 1443)

        loop.run(for: .seconds(2))
        #expect(output.lines.count == 7)
        #expect(output.lines.last == "warn suppressed 1443 more like this in 60 s: re-initialising the controller: hardware error 0x6")
        #expect(limiter.pendingSuppressed == 0)

        // A quiet minute later the kind is written again.
        loop.schedule(after: .seconds(1)) { log.warn("re-initialising the controller: hardware error 0x2") }
        loop.run(for: .seconds(2))
        #expect(output.lines.last == "warn re-initialising the controller: hardware error 0x2")
    }

    @Test func aKindIsTheTextWithNumberedWordsMasked() {
        #expect(LogRateLimiter.kind(of: "hardware error 0x1f") == "hardware error #")
        #expect(LogRateLimiter.kind(of: "controller ready: address 5E:21:0A:93:7C:1D, advertising TX power 8 dBm")
                == "controller ready: address # advertising TX power # dBm")
        #expect(LogRateLimiter.kind(of: "console: end of input") == "console: end of input")
    }

    @Test func debugLinesAreNeverLimitedAndErrorsSetTheSummaryLevel() {
        let loop = VirtualLoop()
        let (limiter, output) = limiter(on: loop)
        let log = Logger(level: .debug, sink: limiter.write)
        for n in 0..<100 { log.debug("sighting rpi \(n)") }
        #expect(output.lines.count == 100)
        for n in 0..<10 { log.warn("disk write failed: errno \(n)") }
        log.error("disk write failed: errno 28")
        loop.run(for: .seconds(61))
        #expect(output.lines.count == 106)
        #expect(output.lines.last == "error suppressed 6 more like this in 60 s: disk write failed: errno 28")
    }
}
