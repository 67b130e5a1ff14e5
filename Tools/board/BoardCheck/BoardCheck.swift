/// The board check: the agent's modules, built in Embedded Swift for a board's CPU, on that CPU. ENCore
/// reproduces the official GAEN vectors and reads the third-party export fixtures as the standard build's tests
/// do; the inputs that would trap where Int is 32 bits are refused; the C structs shared with zlib, libcrypto and
/// the kernel have the layout the target's gcc gives them; the sighting store and the radio stack run as the
/// agent runs them. Tools/build-board builds it for each target and runs it under qemu-user; one line of
/// figures, exit status 1 on any failure.
///
///     board-check VECTORS.json FIXTURES-DIRECTORY
///
/// It lives in Tools/board, not in Package.swift: it exists for the board build only, with C beside it that only
/// the board build needs (the strtod entry point, the gcc layouts), and SwiftPM would build it for the host.
///
/// C's `main` itself: Embedded Swift has no `CommandLine`, so the arguments come as C hands them over.
@_cdecl("main")
func boardCheckMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
    let arguments = (0..<Int(argc)).map { argv[$0].map { String(cString: $0) } ?? "" }
    guard arguments.count == 3 else {
        print("usage: board-check VECTORS.json FIXTURES-DIRECTORY")
        return 2
    }
    let vectors = VectorCheck.run(vectorsPath: arguments[1])
    let fixtures = FixtureCheck.run(fixturesDirectory: arguments[2])
    let widths = WidthCheck.run()
    let layouts = LayoutCheck.run()
    let store = StoreCheck.run()
    let radio = RadioCheck.run()
    let runtime = RuntimeCheck.run()
    for failure in vectors.failures + fixtures.failures + widths.failures + layouts.failures + store.failures
        + radio.failures + runtime.failures {
        print("FAIL \(failure)")
    }
    print("\(vectors.passed)/\(vectors.total) vectors, \(fixtures.passed)/\(fixtures.total) fixtures, "
          + "\(widths.passed)/\(widths.total) width checks (Int is \(Int.bitWidth) bits), "
          + "\(layouts.passed)/\(layouts.total) C layouts as gcc, \(store.passed)/\(store.total) store checks, "
          + "\(radio.passed)/\(radio.total) radio checks, \(runtime.passed)/\(runtime.total) runtime checks")
    let passed = [vectors, fixtures, widths, layouts, store, radio, runtime].allSatisfy { $0.allPassed }
    return passed ? 0 : 1
}
