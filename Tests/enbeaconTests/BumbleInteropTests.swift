import Foundation
import Testing

/// Interop with Bumble (PyPI `bumble`, pinned in Tools/interop/requirements.txt), a Bluetooth stack
/// written independently of enbeacon: two linked Bumble virtual controllers on loopback TCP, the
/// `enbeacon run` agent on the first, a Bumble host (Tools/interop/bumble_peer.py) on the second
/// that advertises a GAEN payload and scans. One session serves all tests of the suite.
///
/// Known deviations of Bumble 0.0.236's controller that these tests expect (see TESTING.md §4):
/// every scan is answered with LE Extended Advertising Reports, each advertisement reported twice
/// (once flagged as a scan response); RSSI is always −50; HCI_Reset does not stop advertising; and
/// a legacy ADV_NONCONN_IND is never put on the virtual link at all, which
/// Tools/interop/bumble_controllers.py fills in (it sends it as ADV_IND, so the peer hears a
/// "connectable" report).
@Suite(.serialized, .timeLimit(.minutes(3)))
struct BumbleInteropTests {
    static let gaenHeader: [UInt8] = [0x02, 0x01, 0x1A, 0x03, 0x03, 0x6F, 0xFD, 0x17, 0x16, 0x6F, 0xFD]

    @Test(.enabled(if: BumbleSession.bumbleAvailable,
                   "Bumble is not importable by python3: pip install -r Tools/interop/requirements.txt"))
    func bumbleHearsTheExactPayloadOfTheAgentsKey() throws {
        let s = try BumbleSession.shared.get()
        let heard = s.peerReports.filter { $0.data.count == 31 && Array($0.data.prefix(11)) == Self.gaenHeader }
        try #require(!heard.isEmpty, "the Bumble peer heard no GAEN advertisement; its reports: \(s.peerReports.count)")
        // Every report the peer heard came from the agent's controller, and is GAEN.
        #expect(heard.count == s.peerReports.count, "non-GAEN reports: \(s.peerReports.filter { !heard.contains($0) })")

        // One address, one payload while the test ran (no rotation is due within 10 minutes).
        let first = heard[0]
        #expect(Set(heard.map(\.address)).count == 1, "addresses: \(Set(heard.map(\.address)))")
        #expect(Set(heard.map(\.data)).count == 1, "payloads: \(Set(heard.map(\.data.hexString)))")
        #expect(first.addressType == 1, "a random address")
        let msb = try #require(UInt8(first.address.prefix(2), radix: 16))
        #expect(msb & 0xC0 == 0, "a non-resolvable private address: \(first.address)")
        #expect(first.rssi == -50)

        // The exact 31 bytes: 02 01 1A | 03 03 6F FD | 17 16 6F FD <RPI> <AEM>.
        let rpi = first.data[11..<27].hexString, aem = first.data[27..<31].hexString
        #expect(first.data.hexString == "02011a03036ffd17166ffd" + rpi + aem)

        // The RPI and AEM are those of a TEK in the agent's keys file for the ENIN of the broadcast.
        let keys = try s.keys()
        try #require(!keys.isEmpty, "no keys in the agent's keys file")
        var matches: [(key: StoredKey, interval: UInt32)] = []
        // The ENIN when the agent started, or the next one if a 10-minute boundary passed meanwhile.
        let heardInterval = BumbleSession.interval(of: first.time)
        for interval in min(s.startInterval, heardInterval)...max(s.startInterval, heardInterval) {
            for key in keys where key.rollingStart <= interval && interval < key.rollingStart + key.rollingPeriod {
                let derived = try derive(tek: key.tek, interval: interval, metadata: nil)
                if derived.rpi == rpi { matches.append((key, interval)) }
            }
        }
        try #require(matches.count == 1,
                     "RPI \(rpi) is not `enbeacon derive` of exactly one stored key for ENIN \(s.startInterval)…; keys: \(keys)")
        let (key, interval) = matches[0]

        // The AEM decrypts (AES-CTR: XOR with the keystream, i.e. the AEM of all-zero metadata) to version 1.1
        // metadata (Google's layout: bits 7:6 major 1, 5:4 minor 1, 3:2 calibration confidence) with the board
        // file's confidence (2, medium) and the controller's advertising TX power (Bumble reports 0 dBm).
        let keystream = try derive(tek: key.tek, interval: interval, metadata: "00000000").aem
        let metadata = zip(try hexBytes(aem), try hexBytes(keystream)).map { $0 ^ $1 }
        #expect(metadata == [0x58, 0x00, 0x00, 0x00], "decrypted metadata \(metadata.hexString)")
        let version = try #require(metadata.first)
        #expect(version >> 6 == 1 && version >> 4 & 0b11 == 1, "version 1.1")
        #expect(version >> 2 & 0b11 == BumbleSession.calibrationConfidence, "the board file's calibration confidence")
        #expect(try derive(tek: key.tek, interval: interval, metadata: "58000000").aem == aem)
    }

    /// `keys export --yes` is what a health authority's server would receive; phones that met the badge
    /// must find it from those keys. Re-derived here with `enbeacon derive` from the exported JSON alone, the
    /// keys must give the RPI the Bumble scanner recorded.
    @Test(.enabled(if: BumbleSession.bumbleAvailable,
                   "Bumble is not importable by python3: pip install -r Tools/interop/requirements.txt"))
    func exportedKeysRederiveTheRPIsTheScannerRecorded() throws {
        let s = try BumbleSession.shared.get()
        let document = try #require(try JSONSerialization.jsonObject(with: Data(s.keysExport.utf8)) as? [String: Any],
                                    "keys export printed: \(s.keysExport)")
        let published = try #require(document["temporaryExposureKeys"] as? [[String: Any]])
        try #require(!published.isEmpty)
        let heardRPIs = Set(s.peerReports.filter { $0.data.count == 31 && Array($0.data.prefix(11)) == Self.gaenHeader }
            .map { $0.data[11..<27].hexString })
        try #require(!heardRPIs.isEmpty)
        var derived: Set<String> = []
        for key in published {
            let tek = try #require((key["key"] as? String).flatMap { Data(base64Encoded: $0) }).hexString
            let start = try #require(key["rollingStartNumber"] as? Int)
            let period = try #require(key["rollingPeriod"] as? Int)
            #expect(period == 144 && start % 144 == 0, "a whole day's key: \(start) + \(period)")
            let r = try Enbeacon.run(["derive", "--tek", tek, "--interval", String(start), "--count", String(period)])
            try #require(r.status == 0, "derive: \(r.stderr)")
            let lines = r.stdout.split(separator: "\n")
            #expect(lines.count == period)
            for line in lines { derived.insert(String(line.split(separator: " ")[1])) }
        }
        #expect(heardRPIs.isSubset(of: derived), "heard \(heardRPIs.sorted()), none derived from the export")
        // Only what the export format carries: no other field names a key.
        #expect(Set(published.flatMap(\.keys)) == ["key", "rollingStartNumber", "rollingPeriod", "transmissionRisk"])
    }

    @Test(.enabled(if: BumbleSession.bumbleAvailable,
                   "Bumble is not importable by python3: pip install -r Tools/interop/requirements.txt"))
    func agentRecordsTheBumblePeerAsASighting() throws {
        let s = try BumbleSession.shared.get()
        let sightings = try s.sightings()
        let ofPeer = sightings.filter { $0.rpi == s.peerRPI.hexString }
        try #require(!ofPeer.isEmpty, "no sighting of the peer's RPI \(s.peerRPI.hexString): \(sightings)")
        for sighting in ofPeer {
            #expect(sighting.aem == s.peerAEM.hexString)
            #expect(sighting.rssiMax == -50)
        }
        // Nothing else was on the air. (The store keeps no sender address, by design.)
        #expect(sightings.allSatisfy { $0.rpi == s.peerRPI.hexString }, "\(sightings)")
    }

    /// The run had a TEK, the badge's RPIs and addresses, and the peer's RPI and address: none of them is in the
    /// agent's log, although it logged at debug level (the btsnoop file records the air, by nature).
    @Test(.enabled(if: BumbleSession.bumbleAvailable,
                   "Bumble is not importable by python3: pip install -r Tools/interop/requirements.txt"))
    func agentLogNamesNoKeyRPIOrAddress() throws {
        let s = try BumbleSession.shared.get()
        let log = s.agentStderr.lowercased()
        #expect(log.contains(" debug "), "the log was at debug level")
        var secrets = [s.peerRPI.hexString, s.peerAddress.lowercased()] + (try s.keys()).map(\.tek)
        for report in s.peerReports where report.data.count == 31 {
            secrets += [report.data[11..<27].hexString, report.address.lowercased()]
        }
        #expect(secrets.count >= 5)
        for secret in Set(secrets) {
            #expect(!log.contains(secret), "the agent's log holds \(secret)")
        }
    }

    @Test(.enabled(if: BumbleSession.bumbleAvailable,
                   "Bumble is not importable by python3: pip install -r Tools/interop/requirements.txt"))
    func agentStopsCleanlyAndKeepsItsKeysPrivate() throws {
        let s = try BumbleSession.shared.get()
        #expect(s.agentStatus == 0, "enbeacon exit status after SIGTERM; stderr:\n\(s.agentStderr)")
        #expect(s.agentStderr.contains("stopped:"), "no summary line:\n\(s.agentStderr)")
        #expect(s.keysMode == 0o600, "mode of DIR/keys: \(String(s.keysMode ?? 0, radix: 8))")
        #expect(s.dataDirectoryMode == 0o700, "mode of DIR: \(String(s.dataDirectoryMode ?? 0, radix: 8))")
    }

    @Test(.enabled(if: BumbleSession.bumbleAvailable,
                   "Bumble is not importable by python3: pip install -r Tools/interop/requirements.txt"),
          .enabled(if: FileManager.default.isExecutableFile(atPath: BumbleSession.btmon),
                   "btmon is not installed (Debian package bluez): skipping the btsnoop check"))
    func btsnoopLogOpensCleanlyInBtmon() throws {
        let s = try BumbleSession.shared.get()
        try #require(s.btsnoop.count > 16, "the agent's btsnoop file holds \(s.btsnoop.count) bytes")
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("enbeacon-bumble-\(UUID().uuidString).btsnoop")
        try s.btsnoop.write(to: path)
        defer { try? FileManager.default.removeItem(at: path) }
        let btmon = try ChildProcess(executable: BumbleSession.btmon, arguments: ["-r", path.path], name: "btmon")
        defer { btmon.stop() }
        let status = btmon.waitForExit(timeout: 30)
        let output = btmon.stdout
        #expect(status == 0, "btmon -r exit status \(status.map(String.init) ?? "none (hung)"); stderr: \(btmon.stderr)")
        // The commands that make the agent a beacon and a scanner, and Bumble's reports to it.
        let expected = ["LE Set Random Address", "LE Set Advertising Data", "LE Set Advertising Parameters",
                        "LE Set Scan Enable", "LE Extended Advertising Report"]
        let missing = expected.filter { !output.contains($0) }
        #expect(missing.isEmpty, "btmon -r shows no \(missing)")
        // btmon exits 0 even on bad packets ("invalid packet size", "malformed"): read its text. It calls
        // an RSSI of 127 (not available) "invalid", which is legitimate; nothing else may be.
        let suspicious = (output + btmon.stderr).split(separator: "\n").filter { line in
            let l = line.lowercased()
            return (l.contains("malformed") || l.contains("invalid")) && !l.contains("rssi: invalid")
        }
        #expect(suspicious.isEmpty, "btmon complained:\n\(suspicious.joined(separator: "\n"))")
    }

    // MARK: helpers

    struct Derived: Equatable { var interval: UInt32; var rpi: String; var aem: String }

    func derive(tek: String, interval: UInt32, metadata: String?) throws -> Derived {
        var arguments = ["derive", "--tek", tek, "--interval", String(interval)]
        if let metadata { arguments += ["--metadata", metadata] }
        let r = try Enbeacon.run(arguments)
        try #require(r.status == 0, "enbeacon \(arguments.joined(separator: " ")): \(r.stderr)")
        let fields = r.stdout.split(whereSeparator: \.isWhitespace).map(String.init)
        try #require(fields.count == 3 && fields[0] == String(interval), "derive printed \(r.stdout)")
        return Derived(interval: interval, rpi: fields[1].lowercased(), aem: fields[2].lowercased())
    }
}

// MARK: - The session

struct StoredKey: Sendable, CustomStringConvertible {
    var rollingStart: UInt32
    var rollingPeriod: UInt32
    var tek: String
    var description: String { "\(rollingStart) \(rollingPeriod) \(tek.prefix(4))…" }
}

/// One advertising report as the Bumble peer printed it.
struct PeerReport: Sendable, Hashable {
    var address: String
    var addressType: Int
    var data: [UInt8]
    var rssi: Int
    var time: Double
}

/// One sighting of `enbeacon ctl sightings --json`.
struct Sighting: Sendable, CustomStringConvertible {
    var rpi: String, aem: String, rssiMax: Int?
    var description: String { "rpi \(rpi) aem \(aem) rssi max \(rssiMax.map(String.init) ?? "-")" }
}

struct SessionError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// What one run of controllers + agent + peer left behind; all checks work on this.
struct BumbleSession: Sendable {
    static let btmon = "/usr/bin/btmon"
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let interopTools = repository.appendingPathComponent("Tools/interop")

    /// Whether `python3 -c "import bumble"` works.
    static let bumbleAvailable: Bool = {
        guard let p = try? ChildProcess(executable: "/usr/bin/env", arguments: ["python3", "-c", "import bumble"],
                                        name: "python3") else { return false }
        defer { p.stop() }
        return p.waitForExit(timeout: 60) == 0
    }()

    /// Runs once, the first time a test asks for it; later tests see the same result.
    static let shared: Result<BumbleSession, any Error> = Result { try run() }

    var peerRPI: [UInt8]
    var peerAEM: [UInt8]
    var peerAddress: String
    var peerReports: [PeerReport]
    var agentStderr: String
    var agentStatus: Int32?
    var startInterval: UInt32
    /// The agent's DIR/keys, its mode and DIR's mode, read after the agent stopped.
    var keysText: String
    var keysMode: Int?
    var dataDirectoryMode: Int?
    /// The agent's --btsnoop file.
    var btsnoop: Data
    /// What `enbeacon ctl keys export --yes` printed while the agent ran.
    var keysExport: String
    /// What `enbeacon ctl sightings --json` printed once the agent's scan had heard the peer.
    var sightingsJSON: String

    static func interval(of unixSeconds: Double) -> UInt32 { UInt32(unixSeconds / 600) }

    /// What the agent's board file declares (`radio.calibration_confidence`): medium, so that the check sees
    /// the board file's value rather than the default's zero bits.
    static let calibrationConfidence: UInt8 = 2

    func sightings() throws -> [Sighting] {
        guard let object = jsonObject(Substring(sightingsJSON)), let list = object["sightings"] as? [[String: Any]] else {
            throw SessionError("ctl sightings --json answered: \(sightingsJSON)")
        }
        return list.compactMap { item in
            guard let rpi = item["rpi"] as? String, let aem = item["aem"] as? String else { return nil }
            return Sighting(rpi: rpi.lowercased(), aem: aem.lowercased(), rssiMax: item["rssiMax"] as? Int)
        }
    }

    func keys() throws -> [StoredKey] {
        try keysText.split(separator: "\n").map { line in
            let f = line.split(separator: " ")
            guard f.count == 3, let start = UInt32(f[0]), let period = UInt32(f[1]), f[2].count == 32,
                  (try? hexBytes(String(f[2]))) != nil else {
                throw SessionError("keys file line '\(line)' is not '<rollingStart> <rollingPeriod> <32 hex>'")
            }
            return StoredKey(rollingStart: start, rollingPeriod: period, tek: String(f[2]).lowercased())
        }
    }

    static func run() throws -> BumbleSession {
        let fm = FileManager.default
        let folder = fm.temporaryDirectory.appendingPathComponent("enbeacon-bumble-\(UUID().uuidString)")
        try fm.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? fm.removeItem(at: folder) }
        let dataDir = folder.appendingPathComponent("data")  // the agent makes it
        let btsnoopPath = folder.appendingPathComponent("hci.btsnoop").path

        // Safety nets: every child also stops on its own after this long, should the test process die.
        let lifetime = 120

        // 1. Two linked Bumble controllers; they report the ports the kernel gave them.
        let controllers = try ChildProcess(
            executable: "/usr/bin/env",
            arguments: ["python3", "-u", interopTools.appendingPathComponent("bumble_controllers.py").path,
                        "--seconds", String(lifetime)],
            name: "bumble_controllers")
        defer { controllers.stop() }
        var ports: [Int] = []
        try controllers.wait(for: "controller ports", timeout: 30) {
            for line in controllers.stdout.split(separator: "\n") {
                if let object = jsonObject(line), let p = object["ports"] as? [Int], p.count == 2 { ports = p; return true }
            }
            return false
        }

        // 2. The Bumble peer: advertising a random RPI/AEM and scanning before the agent starts, so the
        //    agent's first scan (right after controller init) hears it.
        var rng = SystemRandomNumberGenerator()
        let peerRPI = (0..<16).map { _ in UInt8.random(in: 0...255, using: &rng) }
        let peerAEM = (0..<4).map { _ in UInt8.random(in: 0...255, using: &rng) }
        let peer = try ChildProcess(
            executable: "/usr/bin/env",
            arguments: ["python3", "-u", interopTools.appendingPathComponent("bumble_peer.py").path,
                        "--transport", "tcp-client:127.0.0.1:\(ports[1])",
                        "--rpi", peerRPI.hexString, "--aem", peerAEM.hexString, "--seconds", String(lifetime)],
            name: "bumble_peer")
        defer { peer.stop() }
        var peerAddress = ""
        try peer.wait(for: "the Bumble peer to advertise", timeout: 30, alsoWatching: [controllers]) {
            for line in peer.stdout.split(separator: "\n") {
                if let object = jsonObject(line), object["ready"] as? Bool == true, let a = object["address"] as? String {
                    peerAddress = a
                    return true
                }
            }
            return false
        }

        // 3. The agent on the first controller, with a board file that declares its calibration confidence.
        let board = folder.appendingPathComponent("interop.conf")
        // The clock trusted as on the built-in virtual board, which the agent would run on without the file.
        try "name = interop\nclock = trusted\nradio.calibration_confidence = \(calibrationConfidence)\n"
            .write(to: board, atomically: true, encoding: .utf8)
        let startInterval = interval(of: Date().timeIntervalSince1970)
        let agent = try ChildProcess(
            executable: Enbeacon.binary.path,
            arguments: ["run", "--board", board.path, "--transport", "tcp:127.0.0.1:\(ports[0])", "--data", dataDir.path,
                        "--seconds", String(lifetime), "--log", "debug", "--btsnoop", btsnoopPath],
            name: "enbeacon")
        defer { agent.stop() }

        // 4. Until the peer heard a GAEN advertisement and the agent's scan window closed with a beacon heard.
        try agent.wait(for: "the peer to hear the agent and the agent's scan to hear the peer", timeout: 60,
                       alsoWatching: [controllers, peer]) {
            let peerHeard = peer.stdout.split(separator: "\n").contains { line in
                // A report, not the peer's own "ready" line (which shows the payload it sends).
                guard let object = jsonObject(line), object["rssi"] != nil, let data = object["data"] as? String else {
                    return false
                }
                return data.lowercased().hasPrefix("02011a03036ffd17166ffd") && data.count == 62
            }
            return peerHeard && agent.stderr.contains("scan heard 1 GAEN beacon")
        }
        let sightings = try Enbeacon.run(["ctl", "--data", dataDir.path, "sightings", "--json"])
        guard sightings.status == 0 else { throw SessionError("ctl sightings --json: \(sightings.stderr)") }

        // 5. The wearer's keys, as staff would export them for a positive test (consent given with --yes).
        let export = try Enbeacon.run(["ctl", "--data", dataDir.path, "keys", "export", "--yes"])
        guard export.status == 0 else { throw SessionError("ctl keys export: \(export.stderr)") }

        // 6. Stop the agent the way an init system does, then the Bumble side.
        agent.terminate()
        let agentStatus = agent.waitForExit(timeout: 20)
        peer.stop()
        controllers.stop()

        let reports = peer.stdout.split(separator: "\n").compactMap { line -> PeerReport? in
            guard let o = jsonObject(line), let address = o["address"] as? String, let data = o["data"] as? String,
                  let bytes = try? hexBytes(data), let rssi = o["rssi"] as? Int, let type = o["address_type"] as? Int,
                  let time = (o["time"] as? NSNumber)?.doubleValue else { return nil }
            return PeerReport(address: address, addressType: type, data: bytes, rssi: rssi, time: time)
        }
        func mode(_ url: URL) -> Int? {
            ((try? fm.attributesOfItem(atPath: url.path))?[.posixPermissions] as? NSNumber)?.intValue
        }
        let keysFile = dataDir.appendingPathComponent("keys")
        return BumbleSession(
            peerRPI: peerRPI, peerAEM: peerAEM, peerAddress: peerAddress, peerReports: reports,
            agentStderr: agent.stderr, agentStatus: agentStatus, startInterval: startInterval,
            keysText: (try? String(contentsOf: keysFile, encoding: .utf8)) ?? "",
            keysMode: mode(keysFile), dataDirectoryMode: mode(dataDir),
            btsnoop: (try? Data(contentsOf: URL(fileURLWithPath: btsnoopPath))) ?? Data(), keysExport: export.stdout, sightingsJSON: sightings.stdout)
    }
}

func jsonObject(_ line: Substring) -> [String: Any]? {
    guard line.hasPrefix("{") else { return nil }
    return (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
}

func hexBytes(_ text: String) throws -> [UInt8] {
    let digits = Array(text.utf8)
    guard digits.count % 2 == 0 else { throw SessionError("odd hex length: \(text)") }
    return try stride(from: 0, to: digits.count, by: 2).map { i in
        guard let b = UInt8(String(decoding: digits[i..<i + 2], as: UTF8.self), radix: 16) else {
            throw SessionError("not hex: \(text)")
        }
        return b
    }
}

extension Collection where Element == UInt8 {
    var hexString: String { map { String(format: "%02x", $0) }.joined() }
}

// MARK: - Child processes

/// A child process whose stdout and stderr are collected as they arrive. Everything waits with a
/// deadline; `stop()` (SIGTERM, then SIGKILL) is safe to call repeatedly and belongs in a `defer`.
final class ChildProcess: @unchecked Sendable {
    let name: String
    private let process = Process()
    /// One lock for all children, so that a wait can watch several; broadcast on every read and exit.
    private static let changed = NSCondition()
    /// Counts the broadcasts, so that a waiter notices changes made while it was not waiting.
    nonisolated(unsafe) private static var generation = 0
    // Guarded by `changed`:
    private var out = Data(), err = Data()
    private var exitStatus: Int32?
    private var openStreams: Int
    private var inputPipe: Pipe?

    enum Input {
        case null
        /// A pipe the test writes with `writeInput`.
        case pipe
        /// A descriptor of the test's, e.g. a pseudo-terminal.
        case handle(FileHandle)
    }

    /// `output` and `errors`: where the child's stdout and stderr go instead of being collected (`stdout`
    /// and `stderr` then stay empty), e.g. a pseudo-terminal.
    init(executable: String, arguments: [String], name: String, input: Input = .null,
         output: FileHandle? = nil, errors: FileHandle? = nil) throws {
        self.name = name
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        switch input {
        case .null: process.standardInput = FileHandle.nullDevice
        case .pipe:
            let pipe = Pipe()
            inputPipe = pipe
            process.standardInput = pipe
        case .handle(let handle): process.standardInput = handle
        }
        let outPipe = output == nil ? Pipe() : nil, errPipe = errors == nil ? Pipe() : nil
        process.standardOutput = output ?? outPipe
        process.standardError = errors ?? errPipe
        let collected = [(outPipe, true), (errPipe, false)].compactMap { pipe, isOut in pipe.map { ($0, isOut) } }
        openStreams = collected.count
        process.terminationHandler = { [weak self] p in
            Self.changed.lock()
            self?.exitStatus = p.terminationStatus
            Self.generation += 1
            Self.changed.broadcast()
            Self.changed.unlock()
        }
        try process.run()
        for (pipe, isOut) in collected {
            let fd = pipe.fileHandleForReading.fileDescriptor
            Thread { [self, pipe] in
                var buffer = [UInt8](repeating: 0, count: 65536)
                while true {
                    let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                    if n < 0 && errno == EINTR { continue }
                    Self.changed.lock()
                    if n > 0 {
                        if isOut { out.append(contentsOf: buffer[0..<n]) } else { err.append(contentsOf: buffer[0..<n]) }
                    } else {
                        openStreams -= 1
                    }
                    Self.generation += 1
                    Self.changed.broadcast()
                    Self.changed.unlock()
                    if n <= 0 { break }
                }
                withExtendedLifetime(pipe) {}
            }.start()
        }
    }

    var stdout: String { Self.locked { String(decoding: out, as: UTF8.self) } }
    var stderr: String { Self.locked { String(decoding: err, as: UTF8.self) } }
    var status: Int32? { Self.locked { exitStatus } }

    private static func locked<T>(_ body: () -> T) -> T {
        changed.lock()
        defer { changed.unlock() }
        return body()
    }

    /// Waits until `condition` holds, re-checking whenever any child prints or exits. Throws on the
    /// deadline, or when this child or one of `others` exits first.
    func wait(for what: String, timeout: TimeInterval, alsoWatching others: [ChildProcess] = [],
              until condition: () -> Bool) throws {
        let deadline = Date().addingTimeInterval(timeout)
        let watched = [self] + others
        func dump() -> String {
            watched.map { "--- \($0.name) stdout:\n\($0.stdout.suffix(4000))\n--- \($0.name) stderr:\n\($0.stderr.suffix(4000))" }
                .joined(separator: "\n")
        }
        while true {
            let seen = Self.locked { Self.generation }
            // The condition reads the outputs, so it runs outside the lock.
            if condition() { return }
            if let dead = watched.first(where: { $0.status != nil }) {
                throw SessionError("\(dead.name) exited with status \(dead.status!) while waiting for \(what)\n\(dump())")
            }
            Self.changed.lock()
            var timedOut = false
            while Self.generation == seen && !timedOut {
                timedOut = !Self.changed.wait(until: deadline)
            }
            Self.changed.unlock()
            if timedOut {
                if condition() { return }
                throw SessionError("timed out after \(Int(timeout)) s waiting for \(what)\n\(dump())")
            }
        }
    }

    var processIdentifier: Int32 { process.processIdentifier }

    /// Writes to the child's stdin from another thread, so a child busy answering cannot deadlock the test.
    func writeInput(_ bytes: [UInt8]) {
        guard let handle = inputPipe?.fileHandleForWriting else { return }
        Thread { handle.write(Data(bytes)) }.start()
    }

    /// Sends `signal` (SIGHUP, say) if the process still runs.
    func send(_ signal: Int32) {
        if process.isRunning { kill(process.processIdentifier, signal) }
    }

    /// Sends SIGTERM if the process still runs.
    func terminate() {
        if process.isRunning { process.terminate() }
    }

    /// The exit status once the process has exited and its output is read to the end, or nil if that
    /// takes more than `timeout` seconds.
    @discardableResult
    func waitForExit(timeout: TimeInterval) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        Self.changed.lock()
        defer { Self.changed.unlock() }
        while exitStatus == nil || openStreams > 0 {
            if !Self.changed.wait(until: deadline) { break }
        }
        return exitStatus
    }

    /// SIGTERM, up to 5 s to exit, then SIGKILL.
    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        if waitForExit(timeout: 5) == nil {
            kill(process.processIdentifier, SIGKILL)
            waitForExit(timeout: 5)
        }
    }
}
