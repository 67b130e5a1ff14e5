/// Checks passed out of checks made, and the first few failures spelled out for the log.
struct Tally {
    private(set) var passed = 0
    private(set) var total = 0
    private(set) var failures: [String] = []

    mutating func check(_ ok: Bool, _ what: @autoclosure () -> String) {
        total += 1
        if ok { passed += 1 } else if failures.count < 10 { failures.append(what()) }
    }

    var allPassed: Bool { total > 0 && passed == total }
}
