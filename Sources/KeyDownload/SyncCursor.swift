import ENCore
import Store
import SystemIO

/// What has been processed already, so a sync downloads only what is new (`DATA/keysync`, 0600, written
/// atomically once at the end of each run: one fsync per sync, however many files it processed).
///
/// For an index: the last index line processed. For Corona-Warn-App: the days processed, forgotten once the
/// server no longer lists them. Both belong to one server: a cursor made with another is ignored. A run cut
/// short before its end (power cut) downloads again what it had processed; exposures are not duplicated.
///
/// It also remembers the entry the last runs stopped on, when its download kept failing (network, 5xx), so
/// that after `sync.give_up_after_runs` such runs the entry is skipped instead of wedging every sync; and the
/// keys of processed files that were still under embargo (SPEC §4), to be matched by the first run after it.
package struct SyncCursor: Equatable, Sendable {
    package static let fileName = "keysync"

    /// The file of the key server called `name` (`keysync.<name>`); the default server's (nil) keeps the name
    /// it had before servers had names, so an upgraded badge does not download everything again.
    package static func fileName(forServer name: String?) -> String {
        name.map { fileName + "." + $0 } ?? fileName
    }
    /// Keys held for a later run, at most: a server publishes a day's keys once the day is over, so even a
    /// large region has a few thousand under embargo at a time. Beyond this, a server sending keys of the
    /// future cannot grow the file.
    static let maxHeldKeys = 10_000

    /// An entry whose retries ran out, and in how many runs in a row.
    package struct Failing: Equatable, Sendable {
        package var entry: String
        package var runs: Int
    }

    /// `KeyServer.identity` of the server this cursor belongs to.
    package var server: String
    var lastLine: String?
    var processedDays: Set<String> = []
    /// Unix seconds of the last sync that went through to its end.
    package var lastSuccess: Int64?
    package var failing: Failing?
    /// Keys read while under embargo, in the order first held.
    package var heldKeys: [DiagnosisKey] = []
    /// Where in the data directory it is kept: `fileName(forServer:)`. Not in the file.
    package var fileName = SyncCursor.fileName

    init(server: String, fileName: String = SyncCursor.fileName) {
        self.server = server
        self.fileName = fileName
    }

    /// Sets aside `keys` (those of a run still under embargo) after the keys already held, one entry per key
    /// (a later report replaces an earlier one in its place) and at most `maxHeldKeys`; the number that did not
    /// fit. Linear, no sort: it runs in one turn of the loop.
    mutating func hold(_ keys: [DiagnosisKey]) -> Int {
        var index: [ExposureID: Int] = [:]
        index.reserveCapacity(heldKeys.count + min(keys.count, Self.maxHeldKeys))
        var kept: [DiagnosisKey] = []
        kept.reserveCapacity(min(heldKeys.count + keys.count, Self.maxHeldKeys))
        var dropped = 0
        for key in heldKeys + keys {
            let id = ExposureID(key: key.tek)
            if let at = index[id] {
                kept[at] = key
            } else if kept.count < Self.maxHeldKeys {
                index[id] = kept.count
                kept.append(key)
            } else {
                dropped += 1
            }
        }
        heldKeys = kept
        return dropped
    }

    /// Takes the held keys whose embargo is over at `unixSeconds` out of the cursor.
    mutating func releaseHeldKeys(at unixSeconds: Int64) -> [DiagnosisKey] {
        let due = heldKeys.filter { $0.usableFromUnixSeconds <= unixSeconds }
        heldKeys.removeAll { $0.usableFromUnixSeconds <= unixSeconds }
        return due
    }

    /// Listed days not processed yet.
    func pendingDays(in days: [String]) -> [String] {
        days.filter { !processedDays.contains($0) }
    }

    /// Records processed entries: the last index line, or the days (keeping only days still `listed`).
    mutating func commit(_ entries: [String], indexed: Bool, listed: [String]) {
        if indexed {
            if let last = entries.last { lastLine = last }
        } else {
            processedDays = processedDays.union(entries).intersection(listed)
        }
    }

    // MARK: File

    /// The cursor in `dataDirectory/fileName` for `server`; a fresh one if the file is missing, damaged or for
    /// another server.
    static func load(dataDirectory: String, fileName: String = SyncCursor.fileName, server: String) -> SyncCursor {
        restored(from: TextFile.read(dataDirectory + "/" + fileName, limit: 1 << 20), fileName: fileName, server: server)
    }

    /// The cursor a file's `text` holds for `server`; a fresh one if there is no text, or it is damaged, or it
    /// is another server's (a badge moved to a new server starts that server's feed from its beginning).
    static func restored(from text: String?, fileName: String = SyncCursor.fileName, server: String) -> SyncCursor {
        guard let text, var cursor = SyncCursor(text: text), cursor.server == server else {
            return SyncCursor(server: server, fileName: fileName)
        }
        cursor.fileName = fileName
        return cursor
    }

    func save(dataDirectory: String) throws(SystemError) {
        try AtomicFile.write(Array(text.utf8), to: dataDirectory + "/" + fileName, mode: 0o600)
    }

    /// `key value` lines; a value runs to the end of its line.
    var text: String {
        var lines = ["server \(server)"]
        if let lastLine { lines.append("last_line \(lastLine)") }
        lines += processedDays.sorted().map { "day \($0)" }
        if let lastSuccess { lines.append("last_success \(lastSuccess)") }
        if let failing { lines.append("failing \(failing.runs) \(failing.entry)") }
        lines += heldKeys.map { "held " + Self.heldLine($0) }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `KEYDATA ROLLING_START ROLLING_PERIOD TRANSMISSION_RISK REPORT_TYPE DAYS_SINCE_ONSET`, the last `-` when
    /// the export did not say.
    static func heldLine(_ key: DiagnosisKey) -> String {
        "\(key.tek.keyData.hex) \(key.tek.rollingStart.value) \(key.tek.rollingPeriod) \(key.transmissionRiskLevel) "
            + "\(key.reportType.rawValue) \(key.daysSinceOnsetOfSymptoms.map(String.init) ?? "-")"
    }

    /// A key as `heldLine` wrote it; nil for anything else, which a damaged file may hold.
    static func heldKey(_ line: Substring) -> DiagnosisKey? {
        let fields = line.split(separator: " ")
        guard fields.count == 6, let keyData = Bytes16(hex: String(fields[0])), let start = UInt32(fields[1]),
              let period = UInt32(fields[2]), (1...ENIntervalNumber.intervalsPerDay).contains(period),
              let risk = Int32(fields[3]),
              let type = Int(fields[4]).flatMap(ReportType.init(rawValue:)), type != .revoked, type != .recursive
        else { return nil }
        let onset: Int?
        if fields[5] == "-" { onset = nil } else {
            guard let days = Int32(fields[5]) else { return nil }
            onset = Int(days)
        }
        return DiagnosisKey(tek: TemporaryExposureKey(keyData: keyData, rollingStart: ENIntervalNumber(start), rollingPeriod: period),
                            transmissionRiskLevel: Int(risk), reportType: type, daysSinceOnsetOfSymptoms: onset)
    }

    init?(text: String) {
        var server: String?
        var cursor = SyncCursor(server: "")
        var held: [DiagnosisKey] = []
        // Scalars, not characters, throughout: a value ending in CR (an index line cut there) would join "\r\n"
        // into one character and swallow the next line, and one starting with a combining mark would join the
        // space before it.
        for line in text.unicodeScalars.split(separator: "\n") {
            guard let space = line.firstIndex(of: " ") else { continue }
            let value = line[line.index(after: space)...]
            switch Substring(line[..<space]) {
            case "server": server = String(Substring(value))
            case "last_line": cursor.lastLine = String(Substring(value))
            case "day": cursor.processedDays.insert(String(Substring(value)))
            case "last_success": cursor.lastSuccess = Int64(Substring(value))
            case "failing":
                guard let gap = value.firstIndex(of: " "), let runs = Int(Substring(value[..<gap])) else { continue }
                cursor.failing = Failing(entry: String(Substring(value[value.index(after: gap)...])), runs: runs)
            case "held":
                if let key = Self.heldKey(Substring(value)) { held.append(key) }
            default: continue
            }
        }
        guard let server else { return nil }
        cursor.server = server
        _ = cursor.hold(held)
        self = cursor
    }
}
