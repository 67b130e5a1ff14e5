import ENCore
import SystemIO

/// Sightings as JSON lines, the input of `enbeacon match`: one object per line,
///
///     {"rpi":"<32 hex>","aem":"<8 hex>","rssi":-62,"time":1643200000}
///
/// with `rssi` in dBm (−127…+20 are real readings; `null`, or 127 as the store writes it, is a sighting
/// without RSSI: see `SignalStrength`) and `time` in Unix seconds. Optional members, for scans the store recorded in full: `rssiMax` (the strongest report,
/// default `rssi`), `reports` (default 1) and `secondsSincePreviousScan` (default 0, "unknown", which
/// risk scoring counts as 2 minutes). Other members are ignored; blank lines are skipped. The file is read
/// 64 KiB at a time, lines of at most 64 KiB.
enum SightingsFile {
    static let maxLineLength = 64 * 1024
    /// ENIntervalNumber is 32-bit: later times have no interval.
    static let maxTime = Int64(UInt32.max) * ENIntervalNumber.secondsPerInterval

    struct LineProblem: Error, CustomStringConvertible {
        let path: String
        let line: Int
        let reason: String
        var description: String { "\(path) line \(line): \(reason)" }
    }

    static func read(_ path: String) throws(CommandFailure) -> [Sighting] {
        let file: ReadOnlyFile
        do { file = try ReadOnlyFile(path: path) } catch { throw CommandFailure(error.brief) }
        var sightings: [Sighting] = []
        var lines = LineReader(file: file, maxLength: maxLineLength)
        while true {
            let next: (number: Int, bytes: [UInt8])?
            do {
                next = try lines.next()
            } catch {
                throw CommandFailure("\(path) line \(lines.lineNumber): \(error.reason)")
            }
            guard let (number, bytes) = next else { break }
            guard bytes.contains(where: { $0 != 0x20 && $0 != 0x09 && $0 != 0x0D }) else { continue }
            do {
                sightings.append(try sighting(bytes))
            } catch {
                throw CommandFailure("\(LineProblem(path: path, line: number, reason: error.reason))")
            }
        }
        return sightings
    }

    struct Problem: Error {
        let reason: String
        init(_ reason: String) { self.reason = reason }
    }

    /// One line's sighting.
    static func sighting(_ line: [UInt8]) throws(Problem) -> Sighting {
        let value: JSONValue
        do { value = try JSONValue.parse(utf8: line) } catch { throw Problem("not JSON: \(error)") }
        guard case .object(let members) = value else { throw Problem("expected a JSON object, found \(value.kindDescription)") }
        guard case .string(let rpiText)? = members["rpi"] else { throw Problem("rpi: expected a string of 32 hex digits") }
        guard let rpi = Bytes16(hex: rpiText) else { throw Problem("rpi: expected 32 hex digits, got \"\(rpiText)\"") }
        guard case .string(let aemText)? = members["aem"] else { throw Problem("aem: expected a string of 8 hex digits") }
        guard let aem = AssociatedEncryptedMetadata(hex: aemText) else {
            throw Problem("aem: expected 8 hex digits, got \"\(aemText)\"")
        }
        let rssi: Int64? = members["rssi"] == .null
            ? nil : try integer(members, "rssi", in: Int64(Int8.min)...Int64(Int8.max))
        let time = try integer(members, "time", in: 0...maxTime)
        let rssiMax = try integer(members, "rssiMax", in: Int64(Int8.min)...Int64(Int8.max),
                                  default: rssi ?? Int64(SignalStrength.notAvailable))
        let reports = try integer(members, "reports", in: 1...Int64(UInt16.max), default: 1)
        let gap = try integer(members, "secondsSincePreviousScan", in: 0...Int64(UInt16.max), default: 0)
        let signal = rssi.flatMap { SignalStrength(storedMax: Int8(rssiMax), mean: Int8($0)) }
        return Sighting(rpi: rpi, aem: aem, firstSeen: time, signal: signal, reports: Int(reports),
                        secondsSincePreviousScan: Int(gap))
    }

    private static func integer(_ members: [String: JSONValue], _ name: String, in range: ClosedRange<Int64>,
                                default fallback: Int64? = nil) throws(Problem) -> Int64 {
        guard let value = members[name] else {
            guard let fallback else { throw Problem("\(name): missing") }
            return fallback
        }
        guard case .number(let number) = value, number.rounded() == number, abs(number) <= 1e15 else {
            throw Problem("\(name): expected an integer, found \(value.kindDescription)")
        }
        let integer = Int64(number)
        guard range.contains(integer) else {
            throw Problem("\(name): \(integer) is outside \(range.lowerBound)...\(range.upperBound)")
        }
        return integer
    }
}
