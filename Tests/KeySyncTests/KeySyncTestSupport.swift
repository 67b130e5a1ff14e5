import Agent
import ENCore
import Store
import EventLoop
import Foundation
import Glibc
import TestSupport
import KeySync

// Test servers as child processes, and a bounded way to run the real loop until something happened.

/// A child process (a test server) whose stdout the test reads line by line; killed with SIGKILL when the
/// test lets go of it, since it may have inherited blocked SIGTERM/SIGINT from the loop tests.
final class ServerProcess {
    let process = Process()
    private let output = Pipe()
    private var buffered: [UInt8] = []
    /// Every line read so far.
    private(set) var lines: [String] = []

    init(_ arguments: [String], directory: String? = nil, stderrPath: String? = nil) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        process.standardOutput = output
        process.standardInput = FileHandle.nullDevice
        if let stderrPath {
            _ = FileManager.default.createFile(atPath: stderrPath, contents: nil)
            process.standardError = FileHandle(forWritingAtPath: stderrPath)
        } else {
            process.standardError = FileHandle.nullDevice
        }
        try process.run()
    }

    deinit { kill() }

    func kill() {
        guard process.isRunning else { return }
        Glibc.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// The first line (of those not yet consumed) that contains `text`, or nil after `timeout`.
    func waitForLine(containing text: String, timeout: Duration = .seconds(20)) -> String? {
        let deadline = ContinuousClock.now + timeout
        while true {
            while let newline = buffered.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffered[..<newline], as: UTF8.self)
                buffered.removeSubrange(...newline)
                lines.append(line)
                if line.contains(text) { return line }
            }
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero else { return nil }
            var poller = pollfd(fd: output.fileHandleForReading.fileDescriptor, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(clamping: remaining.components.seconds * 1000 + 1)
            guard poll(&poller, 1, milliseconds) > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let n = chunk.withUnsafeMutableBytes { read(poller.fd, $0.baseAddress, $0.count) }
            if n > 0 { buffered += chunk[..<n] } else if n == 0 { return nil }
        }
    }
}

enum TestServers {
    static let keyServerScript = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Tools/keyserver/keyserver.py").path

    /// `python3 -m http.server` on 127.0.0.1 serving `root` (on `port`, or one it chooses), and its port.
    static func pythonHTTPServer(root: String, port: Int = 0) throws -> (ServerProcess, Int) {
        let server = try ServerProcess(["python3", "-u", "-m", "http.server", "\(port)", "--bind", "127.0.0.1",
                                        "--directory", root])
        guard let line = server.waitForLine(containing: "Serving HTTP"),
              let port = line.split(separator: " ").dropFirst(5).first.flatMap({ Int($0) }) else {
            throw TestFailure("python3 -m http.server did not start: \(server.lines)")
        }
        return (server, port)
    }

    /// Tools/keyserver/keyserver.py serving `root`, and the port it chose.
    static func keyServer(root: String, arguments: [String] = []) throws -> (ServerProcess, Int) {
        let server = try ServerProcess(["python3", "-u", keyServerScript, "--root", root] + arguments)
        guard let line = server.waitForLine(containing: "port "), let port = Int(line.dropFirst(5)) else {
            throw TestFailure("keyserver.py did not start: \(server.lines)")
        }
        return (server, port)
    }

    /// A listening socket on 127.0.0.1 that nobody accepts from, and its port: connections complete (the
    /// kernel queues them) and then nothing is ever answered.
    static func silentListener() -> (Int32, Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        listen(fd, 8)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }

    /// A TCP port nobody listens on (bound, then released).
    static func closedPort() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

/// Runs `command` with /bin/sh and returns its exit status (setup steps: openssl, file preparation).
@discardableResult
func shell(_ command: String, in directory: String) throws -> Int32 {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/sh")
    process.arguments = ["-c", command]
    process.currentDirectoryURL = URL(fileURLWithPath: directory)
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    return process.terminationStatus
}

// MARK: - A key sync world: sightings of known keys, signed exports, the services on a real PollLoop

/// A diagnosis key this test "met": its sightings are in the store.
struct MetKey {
    let key: DiagnosisKey
    var tek: TemporaryExposureKey { key.tek }
    var id: ExposureID { ExposureID(key: key.tek) }
}

/// The sightings a badge stores after meeting `tek` for `minutes` from `start` (unix seconds): one scan every
/// five minutes, RSSI −50 dBm against a TX power of 0 dBm (attenuation 50 dB).
func sightings(of tek: TemporaryExposureKey, from start: Int64, minutes: Int, schedule: KeySchedule) -> [Sighting] {
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
final class KeySyncWorld {
    let folder = TemporaryDirectory()
    var dataDirectory: String { folder.path + "/data" }
    var root: String { folder.path + "/root" }
    var notifyDirectory: String { folder.path + "/notified" }
    var publicKeyPath: String { folder.path + "/keyserver.pem" }
    let loop = PollLoop()
    let schedule = try! KeySchedule()
    let signer = ExportSigner(key: try! SigningKey.generateP256(), keyID: VerificationKeyID(id: "999", version: "v1"))
    /// Signs with another key under the same name: its exports must be rejected.
    let impostor = ExportSigner(key: try! SigningKey.generateP256(), keyID: VerificationKeyID(id: "999", version: "v1"))
    let now: Int64
    /// The day before yesterday, 00:00 UTC: keys of that day are past their embargo whatever the time now.
    let keyDay: ENIntervalNumber
    private(set) var logLines: [String] = []
    private(set) var store: SightingStore!
    private(set) var exposures: ExposureLog!
    private(set) var notifier: ExposureNotifier!
    private(set) var keySync: KeySync!
    private(set) var reports: [SyncReport] = []
    /// How far ahead of the real time the key sync's clock runs, to reach a later day.
    var wallClockAhead: Duration = .zero

    init() throws {
        now = Int64(Date().timeIntervalSince1970)
        keyDay = ENIntervalNumber(unixSeconds: now)!.dayStart.advanced(by: -288)!
        for directory in [dataDirectory, root, notifyDirectory] {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
        try signer.key.publicKeyPEM.write(toFile: publicKeyPath, atomically: false, encoding: .utf8)
        store = try SightingStore(dataDirectory: dataDirectory)
    }

    /// A key met for `minutes` at hour `hour` of its day; its sightings go into the store.
    func meet(hour: Int = 9, minutes: Int = 30, transmissionRisk: Int = 4) -> MetKey {
        let tek = TemporaryExposureKey(keyData: Bytes16.random(), rollingStart: keyDay)
        let start = keyDay.unixSeconds + Int64(hour * 3600)
        sightings(of: tek, from: start, minutes: minutes, schedule: schedule).forEach(store.append)
        try! store.flush()
        return MetKey(key: DiagnosisKey(tek: tek, transmissionRiskLevel: transmissionRisk))
    }

    /// Keys nobody here met.
    func strangers(_ count: Int) -> [DiagnosisKey] {
        (0..<count).map { _ in DiagnosisKey(tek: TemporaryExposureKey(keyData: Bytes16.random(), rollingStart: keyDay),
                                            transmissionRiskLevel: 2) }
    }

    /// A signed export zip.
    func export(_ keys: [DiagnosisKey], revised: [DiagnosisKey] = [], batch: (Int32, Int32) = (1, 1),
                signer: ExportSigner? = nil) -> [UInt8] {
        let start = UInt64(keyDay.unixSeconds)
        let descriptor = ExportDescriptor(startTimestamp: start, endTimestamp: start + 86_400, region: "XX",
                                          batchNum: batch.0, batchSize: batch.1)
        return try! ExportWriter<InMemoryExportOutput>.archive(descriptor: descriptor, signers: [signer ?? self.signer], keys: keys,
                                         revisedKeys: revised)
    }

    /// Writes a file under the server root (folders created).
    func publish(_ bytes: [UInt8], at path: String) {
        let full = root + "/" + path
        try! FileManager.default.createDirectory(atPath: (full as NSString).deletingLastPathComponent,
                                                 withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: full, contents: Data(bytes))
    }

    /// The bytes of published files, as a sync report counts them.
    func syncedBytes(_ paths: [String]) -> Int {
        paths.reduce(0) { sum, path in
            sum + ((try? FileManager.default.attributesOfItem(atPath: root + "/" + path)[.size] as? Int) ?? 0)
        }
    }

    func publishIndex(_ lines: [String]) {
        publish(Array(lines.map { $0 + "\n" }.joined().utf8), at: "index.txt")
    }

    /// The configuration text every test starts from; `extra` lines are appended (and replace a base line
    /// setting the same key).
    func configurationText(_ extra: [String]) -> String {
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
    /// enough for a test.
    func makeKeySync(_ extra: [String], retry: RetryPolicy = RetryPolicy(attempts: 4, firstDelay: .milliseconds(20),
                                                                          maximumDelay: .milliseconds(200))) throws {
        let configuration = try Configuration(parsing: configurationText(extra))
        var settings = try KeySyncSettings(configuration: configuration)
        settings.retry = retry
        settings.jitter = .zero
        let log = Logger(level: .debug) { [weak self] level, message in self?.logLines.append("\(level) \(message)") }
        exposures = ExposureLog(dataDirectory: dataDirectory, log: log)
        notifier = ExposureNotifier(loop: loop, settings: ExposureNotifier.Settings(configuration: configuration), log: log)
        let clock = Clock(loop: LaterWallClock(loop, by: { [unowned self] in wallClockAhead }), policy: .trusted, log: log)
        keySync = KeySync(loop: loop, http: try HTTPClient(loop: loop), settings: settings,
                          clock: clock, store: store, exposures: exposures,
                          notifier: notifier, schedule: schedule, dataDirectory: dataDirectory, log: log)
        keySync.onRunFinished = { [weak self] report in self?.reports.append(report) }
    }

    /// `sync now`, and the loop run until the sync and every notify command it started are over.
    @discardableResult
    func syncNow() throws -> SyncReport {
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
    var notifications: [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: notifyDirectory)) ?? []
        return names.compactMap { try? String(contentsOfFile: notifyDirectory + "/" + $0, encoding: .utf8) }
    }

    func exposure(of met: MetKey) -> [Exposure] { exposures.exposures.filter { $0.id == met.id } }
}

extension Bytes16 {
    static func random() -> Bytes16 { Bytes16((0..<16).map { _ in UInt8.random(in: 0...255) })! }
}

/// A real loop whose wall clock runs `ahead()` of the system's, for a key sync that must see a later time:
/// everything else goes to `base`.
final class LaterWallClock: EventLoop {
    let base: any EventLoop
    let ahead: () -> Duration

    init(_ base: any EventLoop, by ahead: @escaping () -> Duration) {
        self.base = base
        self.ahead = ahead
    }

    var now: MonotonicInstant { base.now }
    var unixNanoseconds: Int64 {
        let (seconds, attoseconds) = ahead().components
        return base.unixNanoseconds + seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
    func setWallClock(unixNanoseconds: Int64) throws(WallClockError) { throw WallClockError(errno: EPERM) }
    var defaultSliceBudget: SliceBudget { base.defaultSliceBudget }
    func schedule(at deadline: MonotonicInstant, _ action: @escaping () -> Void) -> TimerHandle {
        base.schedule(at: deadline, action)
    }
    func cancel(_ timer: TimerHandle) { base.cancel(timer) }
    func watch(fd: Int32, for interest: FDInterest, _ handler: @escaping (FDReadiness) -> Void) -> WatchHandle {
        base.watch(fd: fd, for: interest, handler)
    }
    func update(_ watch: WatchHandle, interest: FDInterest) { base.update(watch, interest: interest) }
    func unwatch(_ watch: WatchHandle) { base.unwatch(watch) }
    func stop() { base.stop() }
}
