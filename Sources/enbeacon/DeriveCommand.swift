import ENCore

/// `enbeacon derive`: the key schedule on the command line, for checking a badge or a phone by hand
/// and for interop tests that must know which RPI a given TEK broadcasts in a given interval.
enum DeriveCommand {
    static let help = """
        usage: enbeacon derive --tek HEX --interval ENIN [--count N] [--metadata HEX] [--json]

        Prints one line per interval: ENIN RPI AEM, lowercase hex, single spaces.
          --tek HEX        the Temporary Exposure Key, 32 hex digits
          --interval ENIN  the first ENIntervalNumber (floor(unix seconds / 600))
          --count N        how many consecutive intervals, 1-\(maxCount) (default 1)
          --metadata HEX   the 4 metadata bytes to encrypt into the AEM (default 40000000:
                           version 1.0, TX power 0 dBm)
          --json           one JSON document instead: rpik, aemk and the intervals
        """
    static let maxCount = 1_000_000

    struct Request {
        var tek: Bytes16
        var start: ENIntervalNumber
        var count: Int
        var metadata: AssociatedEncryptedMetadata
        var json: Bool
    }

    static func parse(_ arguments: inout Arguments) throws(UsageError) -> Request {
        let c = arguments.command
        let tekText = try arguments.required("--tek", "32 hex digits")
        guard let tek = Bytes16(hex: tekText) else {
            throw UsageError(c, "--tek: expected 32 hex digits (16 bytes), got '\(tekText)'")
        }
        let intervalText = try arguments.required("--interval", "an ENIntervalNumber, 0-\(UInt32.max)")
        guard let interval = UInt32(intervalText) else {
            throw UsageError(c, "--interval: expected an ENIntervalNumber, 0-\(UInt32.max), got '\(intervalText)'")
        }
        var count = 1
        if let text = try arguments.option("--count") {
            guard let n = Int(text), n >= 1, n <= maxCount else {
                throw UsageError(c, "--count: expected a number of intervals, 1-\(maxCount), got '\(text)'")
            }
            guard UInt64(interval) + UInt64(n) - 1 <= UInt64(UInt32.max) else {
                throw UsageError(c, "--count: \(n) intervals from \(interval) run past ENIN \(UInt32.max)")
            }
            count = n
        }
        var metadata = Metadata(txPower: 0).plaintext
        if let text = try arguments.option("--metadata") {
            guard let m = AssociatedEncryptedMetadata(hex: text) else {
                throw UsageError(c, "--metadata: expected 8 hex digits (4 bytes), got '\(text)'")
            }
            metadata = m
        }
        let json = arguments.flag("--json")
        try arguments.finish()
        return Request(tek: tek, start: ENIntervalNumber(interval), count: count, metadata: metadata, json: json)
    }

    static func run(_ request: Request, schedule: KeySchedule, output: inout some TextOutputStream) {
        let rpik = schedule.rpik(request.tek)
        let aemk = schedule.aemk(request.tek)
        var rows: [(UInt32, Bytes16, AssociatedEncryptedMetadata)] = []
        rows.reserveCapacity(min(request.count, KeySchedule.maxBatch))
        var done = 0
        if request.json {
            output.write("{\"rpik\":\"\(rpik.hex)\",\"aemk\":\"\(aemk.hex)\",\"metadata\":\"\(request.metadata.hex)\",\"intervals\":[")
        }
        while done < request.count {
            let n = min(KeySchedule.maxBatch, request.count - done)
            let first = ENIntervalNumber(request.start.value + UInt32(done))
            rows.removeAll(keepingCapacity: true)
            schedule.withRPIs(rpik: rpik, from: first, count: n) { batch in
                for j in 0..<n {
                    rows.append((first.value + UInt32(j), batch[j], schedule.aem(aemk: aemk, rpi: batch[j], request.metadata)))
                }
            }
            for (k, (enin, rpi, aem)) in rows.enumerated() {
                if request.json {
                    let comma = done + k == 0 ? "" : ","
                    output.write("\(comma){\"interval\":\(enin),\"rpi\":\"\(rpi.hex)\",\"aem\":\"\(aem.hex)\"}")
                } else {
                    output.write("\(enin) \(rpi.hex) \(aem.hex)\n")
                }
            }
            done += n
        }
        if request.json { output.write("]}\n") }
    }
}
