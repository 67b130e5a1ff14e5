import EventLoop
import Testing

/// Lines an operator alerts on end with their event's stable name, which a journal query finds
/// whatever the words around it say; lines below the level cost nothing, event or not.
@Suite struct LoggerEventTests {
    @Test func aNamedEventEndsItsLineAndOnlyThere() {
        var lines: [(Logger.Level, String)] = []
        let log = Logger(level: .info) { lines.append(($0, $1)) }
        log.warn(.init("controller_lost"), "controller link lost: end of file")
        log.info("scan heard 3 beacons")
        var built = false
        log.log(.debug, .init("never"), { built = true; return "expensive" }())
        #expect(lines.map(\.0) == [.warn, .info])
        #expect(lines.map(\.1) == ["controller link lost: end of file event=controller_lost", "scan heard 3 beacons"])
        #expect(!built, "a debug line under info is never built")
    }
}
