import CMCU
import ENCore

/// The microcontroller test image's program: reads a case file from the host through semihosting (its path is
/// the command line QEMU passes with -append), checks each case against the core compiled into the image, and
/// ends with `N passed, N failed` and QEMU's exit status 0 or 1 (2 when the file cannot be read or parsed).
///
/// The case file is text, one case a line, fields separated by spaces, bytes in lowercase hex, numbers in
/// decimal; `#` starts a comment (Tools/mcu/vectors.py writes it from the official vectors):
///
///     rpik TEK RPIK                          HKDF-SHA256(TEK, "EN-RPIK")
///     aemk TEK AEMK                          HKDF-SHA256(TEK, "EN-AEMK")
///     rpi TEK ENIN RPI                       AES-128(RPIK, PaddedData(ENIN)); the TEK's day starts at ENIN's
///     aem TEK ENIN METADATA AEM              AES-128-CTR(AEMK, RPI, metadata)
///     payload RPI AEM ADVERTISING-DATA       the 31-byte advertisement
///     matcher NOW SIGHTINGS                  a matcher case at Unix time NOW: its SIGHTINGS sightings follow
///     sighting RPI AEM FIRST-SEEN RSSI       one sighting of the case
///     key TEK ROLLING-START ROLLING-PERIOD   one diagnosis key, matched against the case's sightings as it is read
///     matches KEYS HITS                      the case's keys that matched and their hits, summed
///     riskv1 MINIMUM T0,T1 ATT DAYS DUR TRL  the v1 configuration of the exposures1 lines that follow
///     exposures1 START TRL TYPE DAY SIGHTINGS EXPOSURES   one matched key's v1 exposures, scored
///     riskv2 T0,T1,T2 WA WR WS WH MINIMUM    the v2 configuration of the windows2 lines that follow
///     windows2 TYPE ONSET SIGHTINGS WINDOWS SUMMARIES     one matched key's v2 windows and daily summaries
///     storefill BATCH FLUSHES SEGMENTS SIGHTINGS          the sighting store on the flash part after FLUSHES flushes
///     storecut SEED FLUSHES MOST                          a flush cut by the power at each of its flash operations
///
/// (the scoring lines' fields are described in RiskCases.swift, the store's in StoreCases.swift;
/// Tools/mcu/risk_cases.py and store_cases.py write them.)
///
/// The keys of a matcher case are streamed, as a wristband would take them from a hub: RAM holds the sightings,
/// the matcher's index and the key schedule, never the batch of keys.
@main
struct VectorCheck {
    static func main() {
        var commandLine = [CChar](repeating: 0, count: 256)
        let length = mcu_command_line(&commandLine, Int32(commandLine.count))
        guard length > 0 else { fail("no case file: give its path with QEMU's -append") }
        // QEMU gives the image's own path, a space, then -append's text: the case file's path (no spaces).
        let words = commandLine.prefix(Int(length)).map { UInt8(bitPattern: $0) }.split(separator: 0x20)
        guard words.count == 2 else { fail("the command line must be the image and one case file's path") }
        let path = String(decoding: words[1], as: UTF8.self)
        let handle = mcu_open(path)
        guard handle >= 0 else { fail("cannot open \(path) on the host") }
        // One day's set of PaddedData: a wristband matches the keys of the days it saw anyone, one day after another.
        guard let schedule = try? KeySchedule(paddedDays: 1) else { fail("no key schedule: the crypto library failed") }
        var run = CaseRun(schedule: schedule)
        var reader = LineReader(handle: handle)
        while let line = reader.next() {
            if let error = run.check(line) { fail("\(path) line \(reader.lineNumber): \(error)") }
        }
        mcu_close(handle)
        guard !reader.failed else { fail("\(path): read error") }
        if let error = run.finishMatcherCase() { fail("\(path): \(error)") }
        run.printFigures()
        print("\(run.passed) passed, \(run.failed) failed")
        mcu_exit(run.failed == 0 && run.passed > 0 ? 0 : 1)
    }

    static func fail(_ message: String) -> Never {
        print("error: \(message)")
        mcu_exit(2)
    }
}

/// The host file, one line at a time through a small buffer (a case file may be longer than the board's RAM).
struct LineReader {
    let handle: Int32
    private var buffer = [UInt8](repeating: 0, count: 256)
    private var start = 0, end = 0
    private(set) var lineNumber = 0
    private(set) var failed = false

    init(handle: Int32) { self.handle = handle }

    mutating func next() -> [UInt8]? {
        var line: [UInt8] = []
        while true {
            if start == end {
                let n = buffer.withUnsafeMutableBytes { mcu_read(handle, $0.baseAddress, Int32($0.count)) }
                if n < 0 { failed = true }
                guard n > 0 else {
                    if line.isEmpty { return nil }
                    lineNumber += 1
                    return line
                }
                (start, end) = (0, Int(n))
            }
            let byte = buffer[start]
            start += 1
            if byte == 0x0A {
                lineNumber += 1
                return line
            }
            line.append(byte)
        }
    }
}
