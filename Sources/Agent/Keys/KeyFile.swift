import ENCore
import Store
import SystemIO

/// The device's own TEKs on disk (`DATA/keys`, 0600), one per line: `rollingStart rollingPeriod hex`.
///
/// A TEK must be durable before its first RPI is broadcast — otherwise a wearer who tests positive
/// could not report the day's encounters — so the advertiser writes this file first and does not
/// advertise if the write fails. Keys older than 14 days are dropped on every write.
package struct KeyFile {
    static let retentionDays: UInt32 = 14
    package let path: String
    private let fileSystem: any FileSystem

    package init(directory: String, fileSystem: any FileSystem = PosixFileSystem()) {
        path = directory + "/keys"
        self.fileSystem = fileSystem
    }

    package func save(_ keys: [TemporaryExposureKey]) throws(SystemError) {
        let text = keys.map { "\($0.rollingStart.value) \($0.rollingPeriod) \($0.keyData.hex)\n" }.joined()
        try fileSystem.replaceAtomically(path, with: Array(text.utf8))
    }

    /// Keys still within retention at `now`; lines that do not parse are skipped (a damaged line must
    /// not cost the others).
    package static func parse(_ text: String) -> [TemporaryExposureKey] {
        text.split(separator: "\n").compactMap { line in
            let f = line.split(separator: " ")
            guard f.count == 3, let start = UInt32(f[0]), let period = UInt32(f[1]), (1...144).contains(period),
                  let key = Bytes16(hex: String(f[2])) else { return nil }
            return TemporaryExposureKey(keyData: key, rollingStart: ENIntervalNumber(start), rollingPeriod: period)
        }
    }

    /// Keys that must still be kept at `now` (their validity ended less than 14 days ago).
    static func retained(_ keys: [TemporaryExposureKey], at now: ENIntervalNumber) -> [TemporaryExposureKey] {
        let horizon = Int64(now.value) - Int64(retentionDays * ENIntervalNumber.intervalsPerDay)
        return keys.filter { Int64($0.rollingEnd) > horizon }
    }
}
