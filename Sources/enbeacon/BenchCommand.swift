import Simulation
import Agent
import ENCore
import Store
import SystemIO

/// `enbeacon bench …`: measurements printed as figures, never asserted. Each benchmark also measures a
/// baseline in the same run, because the machines are shared and their speed varies.
enum BenchCommand {
    static let help = """
        usage: enbeacon bench match [--keys N] [--sightings N]... [--reference] [--export-file PATH]
               enbeacon bench store [--per-day N] [--days N]

        match   matching throughput: N random diagnosis keys (default 2,000,000) against N stored
                sightings, 1 key in 10,000 of them really seen. Baseline: the key schedule alone
                (RPIK + 144 RPIs per key). The keys go in slices, each timed through the baseline
                and through every matcher in turn, in this thread's CPU time, so a neighbour's load
                falls on all alike. --sightings N may be repeated; without it, 20,000 and 200,000
                (a busy care home's fortnight, and ten times that). For each count: the index's
                memory, its filter's false-positive rate on 4,000,000 random RPIs, and the
                matcher's time as a % of the key schedule alone; the last line is `match N keys/s`
                at the first count.
                --reference: the same keys and sightings also go through a C reference of the key
                schedule and the matcher (Tools/bench/match-reference.c, found here or above the
                executable, compiled with $CC -O2 (default cc) and loaded into this process), timed
                in the same slices; prints keys/s of each and Swift's as a ratio of the reference's,
                and fails if the two derive different RPIs or match different keys. Needs cc and
                libssl-dev; under qemu-user, CC="TRIPLE-gcc -I... -L..." for the agent's CPU.
                --export-file PATH: the same keys in a signed export file instead, matched as
                `enbeacon match` does (read 64 KiB at a time, verified, keys streamed): PATH is
                written first if it does not exist (its public key beside it as PATH.pub.pem), else
                reused with the key count it holds. Times verification (decode + signature) and
                matching (decode + match), and prints the peak RSS of the whole run; last line
                `match-file-peak-rss N MB`.
        store   the sighting store: N sightings a day (default 5,000, a busy care home) for N days
                (default 14) written as the agent does (one flush a minute, scans every ~4 min),
                in a temporary directory. Baseline: the same appends without fsync.
        Prints figures; the last line is `name value unit`.
        """

    static func run(_ arguments: inout Arguments, out: FileOutput) throws(UsageError) -> Int32 {
        guard let which = arguments.positional() else { throw UsageError("bench", "missing benchmark name (match, store)") }
        switch which {
        case "match":
            let keys = try count(&arguments, "--keys", default: 2_000_000)
            var sightings: [Int] = []
            for text in try arguments.options("--sightings") { sightings.append(try count("--sightings", text)) }
            let exportFile = try arguments.option("--export-file")
            let reference = arguments.flag("--reference")
            try arguments.finish()
            if let exportFile {
                guard sightings.count <= 1 else { throw UsageError("bench", "--export-file takes one --sightings count") }
                guard !reference else { throw UsageError("bench", "--reference does not go with --export-file") }
                return matchExportFile(path: exportFile, keys: keys, sightings: sightings.first ?? 20_000, out: out)
            }
            return match(keys: keys, sightingCounts: sightings.isEmpty ? [20_000, 200_000] : sightings,
                         reference: reference, out: out)
        case "store":
            let perDay = try count(&arguments, "--per-day", default: 5_000)
            let days = try count(&arguments, "--days", default: 14)
            try arguments.finish()
            return store(perDay: perDay, days: days, out: out)
        default:
            throw UsageError("bench", "unknown benchmark '\(which)' (match, store)")
        }
    }

    static func count(_ arguments: inout Arguments, _ name: String, default value: Int) throws(UsageError) -> Int {
        guard let text = try arguments.option(name) else { return value }
        return try count(name, text)
    }

    static func count(_ name: String, _ text: String) throws(UsageError) -> Int {
        guard let n = Int(text), n >= 1, n <= 50_000_000 else {
            throw UsageError("bench", "\(name): expected 1-50000000, got '\(text)'")
        }
        return n
    }

    /// The first interval of the benchmark's keys, and the time they are matched at (all out of embargo).
    static let benchStart = ENIntervalNumber(2_800_000)
    static let benchNow = (Int64(benchStart.value) + 144 * 3) * 600

    /// Diagnosis key i of the benchmark: reproducible, so an export file written once can be matched again.
    static func benchKey(_ i: Int) -> DiagnosisKey {
        var g = SplitMix64(seed: UInt64(i) &* 0x9E37_79B9_7F4A_7C15)
        let tek = TemporaryExposureKey.generate(for: ENIntervalNumber(benchStart.value + UInt32(i % 2) * 144), using: &g)
        return DiagnosisKey(tek: tek, transmissionRiskLevel: 4)
    }

    /// Sightings: one in ten thousand keys was really met; the rest are other people's RPIs, spread over
    /// the 14 days the store keeps, as a badge's are (so a key's day has a fourteenth of them nearby).
    static func benchSightings(keys keyCount: Int, sightings sightingCount: Int,
                               schedule: KeySchedule) -> (sightings: [Sighting], planted: Int) {
        var rng = SplitMix64(seed: 0xE4BEAC04)
        var sightings: [Sighting] = []
        sightings.reserveCapacity(sightingCount)
        var planted = 0
        let retention = MatchingRules().retentionSeconds
        for i in stride(from: 0, to: keyCount, by: 10_000) where sightings.count < sightingCount / 2 {
            let k = benchKey(i).tek
            let n = ENIntervalNumber(k.rollingStart.value + 60)
            let rpi = schedule.rpi(rpik: schedule.rpik(k.keyData), interval: n)
            let aem = schedule.aem(aemk: schedule.aemk(k.keyData), rpi: rpi, Metadata(txPower: 4).plaintext)
            sightings.append(Sighting(rpi: rpi, aem: aem, firstSeen: n.unixSeconds + 10, rssiMax: -60, rssiMean: -62,
                                      reports: 8, secondsSincePreviousScan: 240))
            planted += 1
        }
        while sightings.count < sightingCount {
            let random = [rng.next(), rng.next()]
            let rpi = random.withUnsafeBytes { Bytes16(loading: $0) }
            let firstSeen = benchNow - retention + Int64(rng.next() % UInt64(retention))
            sightings.append(Sighting(rpi: rpi, aem: AssociatedEncryptedMetadata(word: 0),
                                      firstSeen: firstSeen, rssiMax: -70, rssiMean: -70, reports: 1,
                                      secondsSincePreviousScan: 240))
        }
        return (sightings, planted)
    }

    /// One sighting count of `bench match`: its matcher and what was measured of it, and the same for the C
    /// reference's matcher when there is one.
    struct MatchRun {
        let sightings: Int
        let planted: Int
        let matcher: KeyMatcher
        let build: Double
        var seconds = 0.0
        var matched = 0
        var referenceIndex: UnsafeMutableRawPointer?
        var referenceSeconds = 0.0
        var referenceMatched = 0
    }

    /// What one timed turn of a slice runs.
    enum Contestant {
        case keySchedule, matcher(Int), referenceKeySchedule, referenceMatcher(Int)
    }

    static func match(keys keyCount: Int, sightingCounts: [Int], reference wantsReference: Bool, out: FileOutput) -> Int32 {
        guard let schedule = try? KeySchedule() else { return 1 }
        var reference: MatchReference?
        if wantsReference {
            do {
                reference = try MatchReference(now: benchNow)
            } catch {
                out.write("enbeacon bench match: \(error)\n")
                return 1
            }
        }
        var runs: [MatchRun] = []
        for count in sightingCounts {
            let (sightings, planted) = benchSightings(keys: keyCount, sightings: count, schedule: schedule)
            let buildStart = monotonicSeconds()
            let matcher = KeyMatcher(sightings: sightings, now: benchNow, schedule: schedule)
            var run = MatchRun(sightings: count, planted: planted, matcher: matcher, build: monotonicSeconds() - buildStart)
            // The bench's sightings all lie within the retention period, so the reference indexes every one.
            run.referenceIndex = reference?.index(rpis: sightings.map { $0.rpi }, intervals: sightings.map { $0.interval?.value ?? 0 },
                                                  toleranceIntervals: matcher.rules.toleranceIntervals)
            runs.append(run)
        }
        defer { for run in runs { reference?.free(index: run.referenceIndex) } }

        // The keys go by in slices; each slice is timed once through the key schedule alone and once
        // through each matcher (and, with --reference, through the C reference's of each), the order turning
        // from slice to slice. The machines are shared: a neighbour's build that starts halfway through then
        // slows all of them alike, where timing each over the whole run would charge it to whichever ran last.
        // The clock is this thread's CPU time, so time the neighbours hold the core is charged to no one. A
        // slice's keys are drawn before any of it is timed, so the figures are the key schedule's and the
        // matchers' alone.
        var contestants: [Contestant] = [.keySchedule] + runs.indices.map { .matcher($0) }
        if reference != nil { contestants += [.referenceKeySchedule] + runs.indices.map { .referenceMatcher($0) } }
        var sink: UInt64 = 0, referenceSink: UInt64 = 0
        var baseline = 0.0, referenceBaseline = 0.0
        var referenceKeys: [UInt8] = []
        let sliceCount = min(keyCount, 40)
        for slice in 0..<sliceCount {
            let keys = (keyCount * slice / sliceCount ..< keyCount * (slice + 1) / sliceCount).map(benchKey)
            if reference != nil { MatchReference.layOut(keys, into: &referenceKeys) }
            for turn in contestants.indices {
                let start = cpuSeconds()
                switch contestants[(turn + slice) % contestants.count] {
                case .keySchedule:
                    for key in keys {
                        schedule.withRPIs(rpik: schedule.rpik(key.tek.keyData), from: key.tek.rollingStart) {
                            sink ^= $0.blocks.loadUnaligned(fromByteOffset: 143 * 16, as: UInt64.self)
                        }
                    }
                    baseline += cpuSeconds() - start
                case .matcher(let r):
                    let matcher = runs[r].matcher
                    var matched = 0
                    for key in keys where !matcher.match(key).isEmpty { matched += 1 }
                    runs[r].seconds += cpuSeconds() - start
                    runs[r].matched += matched
                case .referenceKeySchedule:
                    referenceSink ^= referenceKeys.withUnsafeBytes { reference!.keySchedule($0.baseAddress, keys.count) }
                    referenceBaseline += cpuSeconds() - start
                case .referenceMatcher(let r):
                    let matched = referenceKeys.withUnsafeBytes { reference!.match(runs[r].referenceIndex, $0.baseAddress, keys.count) }
                    runs[r].referenceSeconds += cpuSeconds() - start
                    runs[r].referenceMatched += matched
                }
            }
        }

        out.write("baseline (RPIK + 144 RPIs per key): \(Int(Double(keyCount) / baseline)) keys/s\n")
        for run in runs {
            let index = run.matcher.index
            let filters = index.filters
            let keysDay = filters.filter(containing: benchStart)
            out.write("keys \(keyCount), sightings \(run.sightings), planted \(run.planted), matched keys \(run.matched)\n")
            out.write("index build \(format(run.build * 1000)) ms\n")
            out.write("index \(format(Double(index.byteCount) / 1024)) KiB, of which filters \(format(Double(filters.byteCount) / 1024)) KiB "
                      + "for \(filters.dayCount) days; the keys' first day's filter \(format(Double(keysDay?.byteCount ?? 0) / 1024)) KiB, "
                      + "false positives \(formatPercent(keysDay.map(falsePositiveRate) ?? 0)) % of 4000000 random RPIs\n")
            out.write("matching: \(format(run.seconds)) s, \(format(run.seconds / baseline * 100)) % of baseline time\n")
        }
        for run in runs {
            out.write("matcher at \(run.sightings) sightings: \(format(run.seconds / baseline * 100)) % of the key schedule alone, "
                      + "\(keysPerSecond(keyCount, run.seconds)) keys/s\n")
        }
        var agrees = true
        if let reference {
            out.write("C reference: \(reference.source), \((reference.compiler + MatchReference.compilerFlags).joined(separator: " ")), "
                      + "timed in the same slices\n")
            out.write("key schedule: Swift \(keysPerSecond(keyCount, baseline)) keys/s, C reference "
                      + "\(keysPerSecond(keyCount, referenceBaseline)) keys/s, ratio \(formatRatio(referenceBaseline / baseline))\n")
            for run in runs {
                out.write("matcher at \(run.sightings) sightings: Swift \(keysPerSecond(keyCount, run.seconds)) keys/s, C reference "
                          + "\(keysPerSecond(keyCount, run.referenceSeconds)) keys/s, ratio \(formatRatio(run.referenceSeconds / run.seconds)), "
                          + "C matched keys \(run.referenceMatched)\n")
            }
            if sink != referenceSink || runs.contains(where: { $0.referenceMatched != $0.matched }) {
                out.write("the C reference disagrees with Swift: its RPIs or its matches differ\n")
                agrees = false
            }
        }
        out.write("peak RSS \(Posix.peakResidentKilobytes / 1024) MB\n")
        out.write("match \(keysPerSecond(keyCount, runs[0].seconds)) keys/s\n")
        if sink == 42 { out.write("") }  // keeps the baseline loop from being optimised away
        return agrees && runs.allSatisfy({ $0.matched == $0.planted }) ? 0 : 1
    }

    static func keysPerSecond(_ keys: Int, _ seconds: Double) -> Int { Int(Double(keys) / max(seconds, 1e-9)) }

    /// The share of random RPIs, none of them stored, that the filter lets through.
    static func falsePositiveRate(_ filter: RPIFilter) -> Double {
        var rng = SplitMix64(seed: 0xF1F7E4)
        let probes = 4_000_000
        var passed = 0
        for _ in 0..<probes {
            let random = (rng.next(), rng.next())
            if filter.mayContain(withUnsafeBytes(of: random) { Bytes16(loading: $0) }) { passed += 1 }
        }
        return Double(passed) / Double(probes)
    }

    /// `bench match --export-file`: the benchmark's keys in a signed export file, matched the way
    /// `enbeacon match` matches (verify, then stream the keys through the matcher).
    static func matchExportFile(path: String, keys requested: Int, sightings sightingCount: Int, out: FileOutput) -> Int32 {
        do {
            return try matchExportFileOrFail(path: path, keys: requested, sightings: sightingCount, out: out)
        } catch {
            out.write("enbeacon bench match: \(error)\n")
            return 1
        }
    }

    private static func matchExportFileOrFail(path: String, keys requested: Int, sightings sightingCount: Int,
                                              out: FileOutput) throws(CommandFailure) -> Int32 {
        let keyPath = path + ".pub.pem"
        var written = ""
        if (try? Posix.status(of: path)) == nil {
            let writeStart = monotonicSeconds()
            let signing = try CommandFailure.of { () throws(SigningKeyError) in try SigningKey.generateP256() }
            try writeBenchExport(path: path, keys: requested, signing: signing)
            let pem = try CommandFailure.of { () throws(SystemError) in try ExportFileOutput(path: keyPath) }
            try CommandFailure.of { () throws(ExportWriteError) in
                try Array(signing.publicKeyPEM.utf8).withUnsafeBytes { bytes in
                    Result { () throws(ExportWriteError) in try pem.append(bytes) }
                }.get()
            }
            try CommandFailure.of { () throws(SystemError) in try pem.commit() }
            written = " (written in \(format(monotonicSeconds() - writeStart)) s, in this run)"
        } else if (try? Posix.status(of: keyPath)) == nil {
            throw CommandFailure("\(path) exists but its public key \(keyPath) does not")
        }
        let schedule = try CommandFailure.of { () throws(CryptoError) in try KeySchedule() }
        let trusted = try TrustedKeys.load(paths: [keyPath], onlyID: nil)

        let verifyStart = monotonicSeconds()
        let file = try ExportCommand.open(path)
        let (verified, _) = try trusted.verify(file)
        let verifying = monotonicSeconds() - verifyStart
        let keyCount = verified.header.keyRecordCount

        let (sightings, planted) = benchSightings(keys: keyCount, sightings: sightingCount, schedule: schedule)
        let detection = ExposureDetection(matcher: KeyMatcher(sightings: sightings, now: benchNow, schedule: schedule))
        let matchStart = monotonicSeconds()
        let skipped = try CommandFailure.of { () throws(ExportFileError) in try detection.consider(verified, name: path) }
        let matchingTime = monotonicSeconds() - matchStart
        let matched = detection.matched.count

        let peakMB = Double(Posix.peakResidentKilobytes) / 1024
        let size = (try? Posix.status(of: path).byteCount) ?? 0
        out.write("export file \(path): \(keyCount) keys, \(size) bytes\(written)\n")
        out.write("keys \(keyCount), sightings \(sightingCount), planted \(planted), matched keys \(matched), "
                  + "skipped \(skipped)\n")
        out.write("verify (decode + ECDSA P-256 over export.bin): \(format(verifying)) s\n")
        out.write("match (decode + match): \(format(matchingTime)) s, \(Int(Double(keyCount) / matchingTime)) keys/s\n")
        out.write("match-file \(Int(Double(keyCount) / (verifying + matchingTime))) keys/s (verify + match)\n")
        out.write("match-file-peak-rss \(format(peakMB)) MB\n")
        return matched == planted ? 0 : 1
    }

    /// The benchmark's keys in a signed export at `path`, streamed to disk as they are made.
    private static func writeBenchExport(path: String, keys requested: Int, signing: SigningKey) throws(CommandFailure) {
        let output = try CommandFailure.of { () throws(SystemError) in try ExportFileOutput(path: path) }
        let descriptor = ExportDescriptor(startTimestamp: UInt64(benchStart.unixSeconds), endTimestamp: UInt64(benchNow),
                                          region: "XX")
        let finished = try CommandFailure.of { () throws(ExportWriteError) in
            let writer = try ExportWriter(
                descriptor: descriptor,
                signers: [ExportSigner(key: signing, keyID: VerificationKeyID(id: "999", version: "v1"))], output: output)
            for i in 0..<requested { try writer.add(benchKey(i)) }
            return try writer.finish()
        }
        try CommandFailure.of { () throws(SystemError) in try finished.commit() }
    }

    static func store(perDay: Int, days: Int, out: FileOutput) -> Int32 {
        do {
            let baseline = try StoreWorkload.run(sightingsPerDay: perDay, days: days, fileSystem: UnsyncedFileSystem())
            let f = try StoreWorkload.run(sightingsPerDay: perDay, days: days)
            out.write("sightings \(f.sightings) (\(f.sightingsPerDay)/day for \(f.days) days), stored \(f.storedSightings)\n")
            out.write("on disk \(f.bytesOnDisk) bytes, \(format(f.bytesPerSighting)) bytes per sighting\n")
            out.write("written per day \(Int(f.bytesWrittenPerDay)) bytes in \(Int(f.flushesPerDay)) flushes, "
                      + "\(Int(f.fsyncsPerDay)) fsyncs\n")
            out.write("mean flush \(format(f.meanFlushMicroseconds)) µs\n")
            out.write("appends \(Int(f.appendsPerSecond)) per second with fsync; baseline without fsync "
                      + "\(Int(baseline.appendsPerSecond)) per second\n")
            out.write("store \(format(f.bytesPerSighting)) bytes/sighting\n")
            return 0
        } catch {
            out.write("enbeacon bench store: \(error)\n")
            return 1
        }
    }

    static func monotonicSeconds() -> Double {
        Double(KernelClock.monotonicNanoseconds()) / 1e9
    }

    /// CPU time of the calling thread.
    static func cpuSeconds() -> Double {
        Double(KernelClock.threadCPUNanoseconds()) / 1e9
    }

    static func format(_ x: Double) -> String {
        let scaled = (x * 10).rounded() / 10
        return String(scaled)
    }

    /// A ratio with three decimals.
    static func formatRatio(_ x: Double) -> String {
        let thousandths = Int((x * 1000).rounded())
        let fraction = String(thousandths % 1000)
        return "\(thousandths / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }

    /// A rate as a percentage with three decimals: false-positive rates are a few hundredths of a percent.
    static func formatPercent(_ rate: Double) -> String {
        let thousandths = Int((rate * 100_000).rounded())
        let fraction = String(thousandths % 1000)
        return "\(thousandths / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }
}
