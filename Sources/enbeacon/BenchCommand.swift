import Agent
import ENCore
import Store
#if canImport(Glibc)
import Glibc
#endif

/// `enbeacon bench …`: measurements printed as figures, never asserted. Each benchmark also measures a
/// baseline in the same run, because the machines are shared and their speed varies.
enum BenchCommand {
    static let help = """
        usage: enbeacon bench match [--keys N] [--sightings N]
               enbeacon bench store [--per-day N] [--days N]

        match   matching throughput: N random diagnosis keys (default 2,000,000) against N stored
                sightings (default 20,000), 1 key in 10,000 of them really seen. Baseline: the key
                schedule alone (RPIK + 144 RPIs per key), in the same run.
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
            let sightings = try count(&arguments, "--sightings", default: 20_000)
            try arguments.finish()
            return match(keys: keys, sightings: sightings, out: out)
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
        guard let n = Int(text), n >= 1, n <= 50_000_000 else {
            throw UsageError("bench", "\(name): expected 1-50000000, got '\(text)'")
        }
        return n
    }

    static func match(keys keyCount: Int, sightings sightingCount: Int, out: FileOutput) -> Int32 {
        guard let schedule = try? KeySchedule() else { return 1 }
        let start = ENIntervalNumber(2_800_000)
        let now = (Int64(start.value) + 144 * 3) * 600
        var rng = SplitGenerator(seed: 0xE4BEAC04)
        func key(_ i: Int) -> DiagnosisKey {
            var g = SplitGenerator(seed: UInt64(i) &* 0x9E37_79B9_7F4A_7C15)
            let tek = TemporaryExposureKey.generate(for: ENIntervalNumber(start.value + UInt32(i % 2) * 144), using: &g)
            return DiagnosisKey(tek: tek, transmissionRiskLevel: 4)
        }
        // Sightings: one in ten thousand keys was really met; the rest are other people's RPIs.
        var sightings: [Sighting] = []
        sightings.reserveCapacity(sightingCount)
        var planted = 0
        for i in stride(from: 0, to: keyCount, by: 10_000) where sightings.count < sightingCount / 2 {
            let k = key(i).tek
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
            sightings.append(Sighting(rpi: rpi, aem: AssociatedEncryptedMetadata(word: 0),
                                      firstSeen: Int64(start.value + 60) * 600, rssiMax: -70, rssiMean: -70, reports: 1,
                                      secondsSincePreviousScan: 240))
        }

        // Baseline: the key schedule alone.
        var sink: UInt64 = 0
        let baselineStart = monotonicSeconds()
        for i in 0..<keyCount {
            let tek = key(i).tek
            schedule.withRPIs(rpik: schedule.rpik(tek.keyData), from: tek.rollingStart) { sink ^= UInt64($0[143].prefix16) }
        }
        let baseline = monotonicSeconds() - baselineStart

        let buildStart = monotonicSeconds()
        let matcher = KeyMatcher(sightings: sightings, now: now, schedule: schedule)
        let build = monotonicSeconds() - buildStart
        var matched = 0
        let matchStart = monotonicSeconds()
        for i in 0..<keyCount where !matcher.match(key(i)).isEmpty { matched += 1 }
        let matching = monotonicSeconds() - matchStart

        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        out.write("keys \(keyCount), sightings \(sightingCount), planted \(planted), matched keys \(matched)\n")
        out.write("index build \(format(build * 1000)) ms\n")
        out.write("baseline (RPIK + 144 RPIs per key): \(Int(Double(keyCount) / baseline)) keys/s\n")
        out.write("matching: \(format(matching)) s, \(format(matching / baseline * 100)) % of baseline time\n")
        out.write("peak RSS \(usage.ru_maxrss / 1024) MB\n")
        out.write("match \(Int(Double(keyCount) / matching)) keys/s\n")
        if sink == 42 { out.write("") }  // keeps the baseline loop from being optimised away
        return matched == planted ? 0 : 1
    }

    static func store(perDay: Int, days: Int, out: FileOutput) -> Int32 {
        do {
            let baseline = try StoreBenchmark.run(sightingsPerDay: perDay, days: days, fileSystem: UnsyncedFileSystem())
            let f = try StoreBenchmark.run(sightingsPerDay: perDay, days: days)
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
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }

    static func format(_ x: Double) -> String {
        let scaled = (x * 10).rounded() / 10
        return String(scaled)
    }
}
