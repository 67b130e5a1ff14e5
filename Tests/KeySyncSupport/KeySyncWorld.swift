import AgentBase
import ENCore
import KeyDownload
import Store
import EventLoop
import Foundation
import Glibc
import TestSupport
import Network

// MARK: - A key sync world: sightings of known keys, signed exports, the services on a real PollLoop

/// A diagnosis key this test "met": its sightings are in the store.
package struct MetKey {
    package let key: DiagnosisKey
    package var tek: TemporaryExposureKey { key.tek }
    package var id: ExposureID { ExposureID(key: key.tek) }
}

/// The sightings a badge stores after meeting `tek` for `minutes` from `start` (unix seconds): one scan every
/// five minutes, RSSI −50 dBm against a TX power of 0 dBm (attenuation 50 dB).
package func sightings(of tek: TemporaryExposureKey, from start: Int64, minutes: Int, schedule: KeySchedule) -> [Sighting] {
    let rpik = schedule.rpik(tek.keyData)
    let aemk = schedule.aemk(tek.keyData)
    return stride(from: start, through: start + Int64(minutes * 60), by: 300).map { time in
        let interval = ENIntervalNumber(unixSeconds: time)!
        let rpi = schedule.rpi(rpik: rpik, interval: interval)
        let aem = schedule.aem(aemk: aemk, rpi: rpi, Metadata(txPower: 0).plaintext)
        return Sighting(rpi: rpi, aem: aem, firstSeen: time, rssiMax: -45, rssiMean: -50, reports: 4,
                        secondsSincePreviousScan: 300)
    }
}

/// Everything a key sync works with, on a real PollLoop, in a temporary folder: a data directory whose store
/// holds sightings of the `met` keys, a signing key whose public half is configured, and a server root.
package final class KeySyncWorld {
    package let folder = TemporaryDirectory()
    package var dataDirectory: String { folder.path + "/data" }
    package var root: String { folder.path + "/root" }
    package var notifyDirectory: String { folder.path + "/notified" }
    package var publicKeyPath: String { folder.path + "/keyserver.pem" }
    package let loop = PollLoop()
    package let schedule = try! KeySchedule()
    package let signer = ExportSigner(key: try! SigningKey.generateP256(), keyID: VerificationKeyID(id: "999", version: "v1"))
    /// Signs with another key under the same name: its exports must be rejected.
    package let impostor = ExportSigner(key: try! SigningKey.generateP256(), keyID: VerificationKeyID(id: "999", version: "v1"))
    package let now: Int64
    /// The day before yesterday, 00:00 UTC: keys of that day are past their embargo whatever the time now.
    package let keyDay: ENIntervalNumber
    package private(set) var logLines: [String] = []
    package private(set) var store: SightingStore!
    package private(set) var exposures: ExposureLog!
    package private(set) var notifier: ExposureNotifier!
    package private(set) var keySync: KeySync!
    package private(set) var reports: [SyncReport] = []
    /// How far ahead of the real time the key sync's clock runs, to reach a later day.
    package var wallClockAhead: Duration = .zero

    package init() throws {
        now = Int64(Date().timeIntervalSince1970)
        keyDay = ENIntervalNumber(unixSeconds: now)!.dayStart.advanced(by: -288)!
        for directory in [dataDirectory, root, notifyDirectory] {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
        try signer.key.publicKeyPEM.write(toFile: publicKeyPath, atomically: false, encoding: .utf8)
        store = try SightingStore(dataDirectory: dataDirectory)
    }

    /// A key met for `minutes` at hour `hour` of its day; its sightings go into the store.
    package func meet(hour: Int = 9, minutes: Int = 30, transmissionRisk: Int = 4) -> MetKey {
        let tek = TemporaryExposureKey(keyData: Bytes16.random(), rollingStart: keyDay)
        let start = keyDay.unixSeconds + Int64(hour * 3600)
        sightings(of: tek, from: start, minutes: minutes, schedule: schedule).forEach(store.append)
        try! store.flush()
        return MetKey(key: DiagnosisKey(tek: tek, transmissionRiskLevel: transmissionRisk))
    }

    /// Keys nobody here met.
    package func strangers(_ count: Int) -> [DiagnosisKey] {
        (0..<count).map { _ in DiagnosisKey(tek: TemporaryExposureKey(keyData: Bytes16.random(), rollingStart: keyDay),
                                            transmissionRiskLevel: 2) }
    }

    /// A signed export zip.
    package func export(_ keys: [DiagnosisKey], revised: [DiagnosisKey] = [], batch: (Int32, Int32) = (1, 1),
                signer: ExportSigner? = nil, region: String = "XX") -> [UInt8] {
        let start = UInt64(keyDay.unixSeconds)
        let descriptor = ExportDescriptor(startTimestamp: start, endTimestamp: start + 86_400, region: region,
                                          batchNum: batch.0, batchSize: batch.1)
        return try! ExportWriter<InMemoryExportOutput>.archive(descriptor: descriptor, signers: [signer ?? self.signer], keys: keys,
                                         revisedKeys: revised)
    }

    /// Writes a file under the server root (folders created).
    package func publish(_ bytes: [UInt8], at path: String) {
        let full = root + "/" + path
        try! FileManager.default.createDirectory(atPath: (full as NSString).deletingLastPathComponent,
                                                 withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: full, contents: Data(bytes))
    }

    /// The bytes of published files, as a sync report counts them.
    package func syncedBytes(_ paths: [String]) -> Int {
        paths.reduce(0) { sum, path in
            sum + ((try? FileManager.default.attributesOfItem(atPath: root + "/" + path)[.size] as? Int) ?? 0)
        }
    }

    package func publishIndex(_ lines: [String]) {
        publish(Array(lines.map { $0 + "\n" }.joined().utf8), at: "index.txt")
    }

    /// The configuration text every test starts from; `extra` lines are appended (and replace a base line
    /// setting the same key).
    package func configurationText(_ extra: [String]) -> String {
        let key = { (line: String) in line.split(separator: "=").first?.trimmingCharacters(in: .whitespaces) }
        let base = [
            "keyserver.public_key = \(publicKeyPath)",
            "keyserver.key_id = 999",
            "notify.command = cat > \(notifyDirectory)/exposure-$$.json",
            "match.batch_keys = 50",
        ].filter { line in !extra.contains { key($0) == key(line) } }
        return (base + extra).joined(separator: "\n")
    }

    /// Builds the services from a configuration (what `enbeacon run --config` does), with retries fast
    /// enough for a test, on `transport` (libcurl's `HTTPClient` unless a test substitutes one).
    package func makeKeySync(_ extra: [String], retry: RetryPolicy = RetryPolicy(attempts: 4, firstDelay: .milliseconds(20),
                                                                          maximumDelay: .milliseconds(200)),
                     transport: (any NetworkTransport)? = nil) throws {
        let configuration = try Configuration(parsing: configurationText(extra))
        var settings = try KeySyncSettings(configuration: configuration)
        settings.retry = retry
        settings.jitter = .zero
        let log = Logger(level: .debug) { [weak self] level, message in self?.logLines.append("\(level) \(message)") }
        exposures = ExposureLog(dataDirectory: dataDirectory, log: log)
        notifier = ExposureNotifier(loop: loop, settings: ExposureNotifier.Settings(configuration: configuration), log: log)
        let clock = Clock(loop: LaterWallClock(loop, by: { [unowned self] in wallClockAhead }), policy: .trusted, log: log)
        keySync = KeySync(loop: loop, http: try transport ?? HTTPClient(loop: loop), settings: settings,
                          clock: clock, store: store, exposures: exposures,
                          notifier: notifier, schedule: schedule, dataDirectory: dataDirectory, log: log)
        keySync.onRunFinished = { [weak self] report in self?.reports.append(report) }
    }

    /// `sync now`, and the loop run until the sync and every notify command it started are over.
    @discardableResult
    package func syncNow() throws -> SyncReport {
        let before = reports.count
        let request = keySync.syncNow()
        guard request == .started else { throw TestFailure("sync now: \(request)") }
        let done = loop.run(until: { [unowned self] in
            reports.count > before && (notifier.command?.running ?? 0) == 0
        }, timeout: .seconds(60))
        guard done else { throw TestFailure("sync did not finish: \(keySync.status)") }
        return reports[before]
    }

    /// The JSON documents `notify.command` received.
    package var notifications: [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: notifyDirectory)) ?? []
        return names.compactMap { try? String(contentsOfFile: notifyDirectory + "/" + $0, encoding: .utf8) }
    }

    package func exposure(of met: MetKey) -> [Exposure] { exposures.exposures.filter { $0.id == met.id } }
}

extension Bytes16 {
    package static func random() -> Bytes16 { Bytes16((0..<16).map { _ in UInt8.random(in: 0...255) })! }
}

/// A real loop whose wall clock runs `ahead()` of the system's, for a key sync that must see a later time:
/// everything else goes to `base`.
package final class LaterWallClock: EventLoop {
    package let base: any EventLoop
    package let ahead: () -> Duration

    package init(_ base: any EventLoop, by ahead: @escaping () -> Duration) {
        self.base = base
        self.ahead = ahead
    }

    package var now: MonotonicInstant { base.now }
    package var unixNanoseconds: Int64 {
        let (seconds, attoseconds) = ahead().components
        return base.unixNanoseconds + seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
    package func setWallClock(unixNanoseconds: Int64) throws(WallClockError) { throw WallClockError(errno: EPERM) }
    package var defaultSliceBudget: SliceBudget { base.defaultSliceBudget }
    package var longestTurn: Duration? { base.longestTurn }
    package func schedule(at deadline: MonotonicInstant, _ action: @escaping () -> Void) -> TimerHandle {
        base.schedule(at: deadline, action)
    }
    package func cancel(_ timer: TimerHandle) { base.cancel(timer) }
    package func watch(fd: Int32, for interest: FDInterest, _ handler: @escaping (FDReadiness) -> Void) -> WatchHandle {
        base.watch(fd: fd, for: interest, handler)
    }
    package func update(_ watch: WatchHandle, interest: FDInterest) { base.update(watch, interest: interest) }
    package func unwatch(_ watch: WatchHandle) { base.unwatch(watch) }
    package func stop() { base.stop() }
}
