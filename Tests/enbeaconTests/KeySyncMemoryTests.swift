import ENCore
import Foundation
import Store
import Testing

/// The agent as a process of its own (`enbeacon run` on the virtual board) syncing from a key server on
/// 127.0.0.1, its peak RSS read from /proc (VmHWM) and `enbeacon ctl status` timed throughout. Bounds on
/// memory and on the console's answers are asserted; the length of a sync is only printed. Under an emulator
/// (Tools/board/run-tests for the ARM agents) the memory figures are the emulator's, so those bounds are printed
/// instead, the console's answers are bounded by `Enbeacon.timeScale` seconds, and the exports are a tenth the size
/// (`Enbeacon.exportDivisor`).
@Suite(.serialized) struct KeySyncMemoryTests {
    /// Issue 11: a 2,000,000-key signed export is matched (not refused for its size) in under 24 MB, and the
    /// console answers within a second all along.
    ///
    /// What the sync costs is what it adds to the idle agent: under 5.5 MiB (libcurl and its libraries while
    /// downloading, ~2.9 MB of them; the 64 KiB windows; the matcher). The whole stays under 25 MiB: this is
    /// a debug build, whose idle memory grows with the code itself (the relocated metadata of every type), from
    /// 19,340 KiB idle when this bound was 24 MiB to 19,244-19,940 KiB with the metrics and the key download's
    /// state machine (bound 24.5 MiB), and 20,196-20,380 KiB with several key servers, the CWA model and
    /// SystemIO's own C map (a clean build's peak 25,124 KiB), while the sync's own cost stayed at 4.5-5.0 MB
    /// (4,628-4,744 KiB). The board build's own bound for this sync is issue 25's.
    @Test func twoMillionKeysSyncInUnder24MBWhileStatusAnswers() throws {
        let dir = try TestDirectory()
        let world = try AgentSyncWorld(dir)
        let met = try world.meet()
        let keys = 2_000_000 / Enbeacon.exportDivisor
        var bytes = 0
        try world.publish("big.zip") { writer in
            var g = SystemRandomNumberGenerator()
            for i in 0..<keys {
                if i == keys / 2 { try writer.add(met) }
                try writer.add(DiagnosisKey(tek: TemporaryExposureKey.generate(for: world.keyDay, using: &g),
                                            transmissionRiskLevel: 3))
            }
        } size: { bytes = $0 }
        try world.publishIndex(["big.zip"])
        let server = try PythonHTTPServer(root: world.root)
        defer { server.stop() }
        let agent = try SyncingAgent(dir, index: "http://127.0.0.1:\(server.port)/index.txt", world: world)
        defer { agent.stop() }

        let watch = try agent.syncNowWatchingStatus()
        let report = try #require(watch.report)
        #expect(report["outcome"] as? String == "succeeded", "\(report)")
        #expect(report["keys"] as? Int == keys + 1)
        #expect(report["matchedKeys"] as? Int == 1 && report["newExposures"] as? Int == 1)
        print("agent sync of \(keys + 1) keys (\(bytes) byte zip): peak RSS \(watch.peakKiB) KiB "
              + "(\(watch.peakKiB / 1024) MB; \(agent.idleKiB) KiB idle before the sync), status answered \(watch.answers) "
              + "times in at most \(watch.slowestMilliseconds) ms, sync took \(watch.seconds) s")
        #expect(watch.answers >= 3, "status was asked while the sync ran")
        expectMemory(watch.peakKiB - agent.idleKiB < 5 * 1024 + 512,
                     "what the sync adds to the idle agent, \(watch.peakKiB - agent.idleKiB) KiB, under 5,632 KiB")
        expectMemory(watch.peakKiB < 25 * 1024, "peak RSS \(watch.peakKiB) KiB under 25 MiB")
        #expect(watch.slowestMilliseconds < 1000 * Enbeacon.timeScale, "\(watch.failedAnswers)")
        #expect(agent.downloadsLeft.isEmpty)
    }

    /// Issue 23, finding 1: a signed export of 1,000,000 keys under embargo (usable tomorrow) and one of
    /// 1,000,000 keys valid only in three days, synced by an agent with sightings. The keys under embargo are
    /// bounded as they stream in: at most `SyncCursor.maxHeldKeys` held (the planted one, read first, among
    /// them), the rest counted as dropped, the keys of the future counted and ignored; peak RSS under 32 MB
    /// and the console answering within a second throughout (it used to take 693 MiB and block for 6.4 s).
    @Test func aMillionKeysUnderEmbargoAndAMillionOfTheFutureCostCountersNotMemory() throws {
        let dir = try TestDirectory()
        let world = try AgentSyncWorld(dir)
        let now = Int64(Date().timeIntervalSince1970)
        let today = ENIntervalNumber(unixSeconds: now)!.dayStart
        var g = SystemRandomNumberGenerator()
        let planted = DiagnosisKey(tek: TemporaryExposureKey.generate(for: today, using: &g), transmissionRiskLevel: 4)
        try world.meet(planted, from: now - 1500)
        let keys = 1_000_000 / Enbeacon.exportDivisor
        try world.publish("embargo.zip") { writer in
            try writer.add(planted)
            for _ in 1..<keys {
                try writer.add(DiagnosisKey(tek: TemporaryExposureKey.generate(for: today, using: &g), transmissionRiskLevel: 3))
            }
        } size: { _ in }
        let future = today.advanced(by: 3 * 144)!
        try world.publish("future.zip") { writer in
            for _ in 0..<keys {
                try writer.add(DiagnosisKey(tek: TemporaryExposureKey.generate(for: future, using: &g), transmissionRiskLevel: 3))
            }
        } size: { _ in }
        try world.publishIndex(["embargo.zip", "future.zip"])
        let server = try PythonHTTPServer(root: world.root)
        defer { server.stop() }
        let agent = try SyncingAgent(dir, index: "http://127.0.0.1:\(server.port)/index.txt", world: world)
        defer { agent.stop() }

        let watch = try agent.syncNowWatchingStatus()
        let report = try #require(watch.report)
        #expect(report["outcome"] as? String == "succeeded", "\(report)")
        #expect(report["keys"] as? Int == 2 * keys)
        #expect(report["heldKeys"] as? Int == 10_000, "\(report)")
        #expect(report["droppedHeldKeys"] as? Int == keys - 10_000, "\(report)")
        #expect(report["notValidYetKeys"] as? Int == keys, "\(report)")
        #expect(report["matchedKeys"] as? Int == 0 && report["newExposures"] as? Int == 0)
        let cursor = try String(contentsOfFile: world.data + "/keysync", encoding: .utf8)
        #expect(cursor.split(separator: "\n").filter { $0.hasPrefix("held ") }.count == 10_000)
        #expect(cursor.contains("held \(planted.tek.keyData.hex) "), "the planted key is held for after its embargo")
        let log = try String(contentsOfFile: agent.log, encoding: .utf8)
        #expect(log.contains("10000 held until their embargo ends, \(keys - 10_000) under embargo not held"), "the summary's numbers are true")
        print("agent sync of \(keys) keys under embargo and \(keys) of the future: peak RSS \(watch.peakKiB) KiB "
              + "(\(agent.idleKiB) KiB idle before), status answered \(watch.answers) times in at most "
              + "\(watch.slowestMilliseconds) ms, sync took \(watch.seconds) s")
        #expect(watch.answers >= 3, "status was asked while the sync ran")
        expectMemory(watch.peakKiB < 32 * 1024, "peak RSS \(watch.peakKiB) KiB under 32 MiB")
        #expect(watch.slowestMilliseconds < 1000 * Enbeacon.timeScale, "\(watch.failedAnswers)")
    }

    /// Issue 12, finding 1: an index of 32 MiB of tiny lines, and exports of 128 MiB whose signature is
    /// missing or forged, cost the agent no memory: refused (the index by its size, the exports by their
    /// signature, checked in a bounded pass), peak RSS under 32 MB, the console answering within a second;
    /// the good file after them still matches.
    @Test func aHostileIndexAndHugeUnsignedExportsCostNoMemory() throws {
        let dir = try TestDirectory()
        let world = try AgentSyncWorld(dir)
        let met = try world.meet()
        var hostile = [UInt8](repeating: UInt8(ascii: "a"), count: 32 << 20)
        for i in stride(from: 1, to: hostile.count, by: 2) { hostile[i] = UInt8(ascii: "\n") }
        try world.publish(hostile, at: "index.txt")
        let server = try PythonHTTPServer(root: world.root)
        defer { server.stop() }
        let agent = try SyncingAgent(dir, index: "http://127.0.0.1:\(server.port)/index.txt", world: world)
        defer { agent.stop() }

        let index = try agent.syncNowWatchingStatus()
        let refused = try #require(index.report)
        #expect(refused["outcome"] as? String == "failed")
        #expect((refused["error"] as? String)?.hasSuffix("response larger than 4194304 bytes, aborted (sync.max_index_bytes)")
                == true, "\(refused)")
        #expect(try agent.ctl("sync").contains("last error: listing http://127.0.0.1:\(server.port)/index.txt: "
                                                + "response larger than 4194304 bytes, aborted (sync.max_index_bytes)"))

        // 128 MiB of export.bin: signed by someone else, and the same file with its export.sig renamed away.
        let impostor = try SigningKey.generateP256()
        var forged: [UInt8] = []
        try world.publish("forged.zip", signedBy: impostor, compression: .stored) { writer in
            var g = SystemRandomNumberGenerator()
            for _ in 0..<4_700_000 {
                try writer.add(DiagnosisKey(tek: TemporaryExposureKey.generate(for: world.keyDay, using: &g)))
            }
        } size: { _ in } bytes: { forged = $0 }
        #expect(forged.count > 128 << 20)
        try world.publish(Self.renamingExportSig(forged), at: "unsigned.zip")
        forged = []
        try world.publish("good.zip") { try $0.add(met) } size: { _ in }
        try world.publishIndex(["unsigned.zip", "forged.zip", "good.zip"])

        let exports = try agent.syncNowWatchingStatus()
        let report = try #require(exports.report)
        #expect(report["outcome"] as? String == "succeeded", "\(report)")
        #expect(report["rejected"] as? Int == 2 && report["newExposures"] as? Int == 1, "\(report)")
        let refusals = report["refusals"] as? [String] ?? []
        #expect(refusals == ["unsigned.zip: rejected, export.sig is missing: an unsigned export is never used",
                             "forged.zip: rejected, signature by 999-v1 does not verify"])
        let sync = try agent.ctl("sync")
        #expect(sync.contains("  forged.zip: rejected, signature by 999-v1 does not verify"), "\(sync)")
        let peak = max(index.peakKiB, exports.peakKiB)
        print("hostile key server: 32 MiB index refused, 2 exports of \(128 + 1)+ MiB rejected: peak RSS \(peak) KiB "
              + "(\(agent.idleKiB) KiB idle before), status answered in at most "
              + "\(max(index.slowestMilliseconds, exports.slowestMilliseconds)) ms, \(exports.seconds) s")
        expectMemory(peak < 32 * 1024, "peak RSS \(peak) KiB under 32 MiB")
        #expect(max(index.slowestMilliseconds, exports.slowestMilliseconds) < 1000 * Enbeacon.timeScale)
        #expect(agent.downloadsLeft.isEmpty)
    }

    /// The zip with its export.sig entry renamed (same length, so every offset and CRC stays right): unsigned.
    static func renamingExportSig(_ zip: [UInt8]) -> [UInt8] {
        let from = Array("export.sig".utf8), to = Array("export.xig".utf8)
        var out = zip
        var i = 0
        while i + from.count <= out.count {
            if out[i] == from[0] && Array(out[i..<(i + from.count)]) == from {
                out.replaceSubrange(i..<(i + from.count), with: to)
                i += from.count
            } else {
                i += 1
            }
        }
        return out
    }
}

/// A key server folder, a configured public key, and sightings of a met key in the agent's data directory.
struct AgentSyncWorld {
    let dir: TestDirectory
    let signing: SigningKey
    var root: String { dir.path("root") }
    var data: String { dir.path("data") }
    var publicKey: String { dir.path("key.pem") }
    /// The day before yesterday: its keys are out of embargo whatever the time now.
    let keyDay: ENIntervalNumber

    init(_ dir: TestDirectory) throws {
        self.dir = dir
        signing = try SigningKey.generateP256()
        keyDay = ENIntervalNumber(unixSeconds: Int64(Date().timeIntervalSince1970))!.dayStart.advanced(by: -288)!
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        try dir.write("key.pem", text: signing.publicKeyPEM)
    }

    /// A key whose sightings (30 min at 50 dB, 09:00 of `keyDay`) are stored where the agent will find them.
    func meet() throws -> DiagnosisKey {
        var g = SystemRandomNumberGenerator()
        let key = DiagnosisKey(tek: TemporaryExposureKey.generate(for: keyDay, using: &g), transmissionRiskLevel: 4)
        try meet(key, from: keyDay.unixSeconds + 9 * 3600, minutes: 30)
        return key
    }

    /// Sightings of `key` every 5 minutes for `minutes` from `start` (50 dB), stored where the agent will find them.
    func meet(_ key: DiagnosisKey, from start: Int64, minutes: Int64 = 20) throws {
        let schedule = try KeySchedule()
        let store = try SightingStore(dataDirectory: data)
        let rpik = schedule.rpik(key.tek.keyData), aemk = schedule.aemk(key.tek.keyData)
        for time in stride(from: start, through: start + minutes * 60, by: 300) {
            let rpi = schedule.rpi(rpik: rpik, interval: ENIntervalNumber(unixSeconds: time)!)
            store.append(ENCore.Sighting(rpi: rpi, aem: schedule.aem(aemk: aemk, rpi: rpi, Metadata(txPower: 0).plaintext),
                                  firstSeen: time, rssiMax: -45, rssiMean: -50, reports: 4, secondsSincePreviousScan: 300))
        }
        try store.flush()
    }

    /// A signed export written key by key (`fill`), then stored under the server root.
    func publish(_ name: String, signedBy key: SigningKey? = nil, compression: ZipEntry.Method = .deflated,
                 _ fill: (ExportWriter<InMemoryExportOutput>) throws -> Void, size: (Int) -> Void,
                 bytes: ([UInt8]) -> Void = { _ in }) throws {
        let start = UInt64(keyDay.unixSeconds)
        let writer = try ExportWriter(
            descriptor: ExportDescriptor(startTimestamp: start, endTimestamp: start + 86_400, region: "XX"),
            signers: [ExportSigner(key: key ?? signing, keyID: ExportCommandTests.id)], compression: compression,
            output: InMemoryExportOutput())
        try fill(writer)
        let zip = try writer.finish().bytes
        try publish(zip, at: name)
        size(zip.count)
        bytes(zip)
    }

    func publish(_ bytes: [UInt8], at name: String) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: root + "/" + name))
    }

    func publishIndex(_ lines: [String]) throws {
        try publish(Array(lines.map { $0 + "\n" }.joined().utf8), at: "index.txt")
    }

    /// The published files served by `python3 -m http.server` to an agent that syncs them once (`sync now`,
    /// which must succeed); the caller stops both. The sync's report comes with them.
    func servedAndSynced(_ dir: TestDirectory) throws -> (server: PythonHTTPServer, agent: SyncingAgent, report: [String: Any]) {
        let server = try PythonHTTPServer(root: root)
        do {
            let agent = try SyncingAgent(dir, index: "http://127.0.0.1:\(server.port)/index.txt", world: self)
            do {
                let report = try #require(try agent.syncNowWatchingStatus().report)
                #expect(report["outcome"] as? String == "succeeded", "\(report)")
                return (server, agent, report)
            } catch {
                agent.stop()
                throw error
            }
        } catch {
            server.stop()
            throw error
        }
    }
}

/// `python3 -m http.server` on 127.0.0.1, a real and independent HTTP server.
final class PythonHTTPServer {
    let process = Process()
    let port: Int

    init(root: String) throws {
        let out = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-u", "-m", "http.server", "0", "--bind", "127.0.0.1", "--directory", root]
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // "Serving HTTP on 127.0.0.1 port N (http://127.0.0.1:N/) ..."
        var text = ""
        while !text.contains("\n") {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        guard let port = text.split(separator: " ").dropFirst(5).first.flatMap({ Int($0) }) else {
            process.terminate()
            throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "http.server did not start: \(text)"])
        }
        self.port = port
    }

    func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}

/// `enbeacon run` on the virtual board with a key server configured, watched for memory and answers; its log
/// goes to a file.
final class SyncingAgent {
    let process = Process()
    let data: String
    let log: String
    /// VmRSS once the controller was ready, before any sync.
    private(set) var idleKiB = 0

    /// What watching a `sync now` saw.
    struct Watch {
        var report: [String: Any]?
        var peakKiB: Int
        var answers: Int
        var slowestMilliseconds: Int
        var seconds: Int
        /// What a `status` that failed said (exit status and stderr), so a failure names its reason.
        var failedAnswers: [String] = []
    }

    init(_ dir: TestDirectory, index: String, world: AgentSyncWorld) throws {
        data = world.data
        log = dir.path("agent.log")
        let config = try dir.write("enbeacon.conf", text: """
            keyserver.index_url = \(index)
            keyserver.public_key = \(world.publicKey)
            keyserver.key_id = 999

            """)
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        process.executableURL = Enbeacon.binary
        process.arguments = ["run", "--data", data, "--config", config, "--console", "none", "--seconds", "1800"]
        process.standardError = FileHandle(forWritingAtPath: log)
        process.standardOutput = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(30)
        while !((try? String(contentsOfFile: log, encoding: .utf8))?.contains("controller ready") ?? false) {
            guard Date() < deadline, process.isRunning else {
                throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "agent did not start"])
            }
            usleep(20_000)
        }
        idleKiB = status("VmRSS") ?? 0
    }

    /// A line of /proc/PID/status, in KiB.
    func status(_ field: String) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") }) else { return nil }
        return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
    }

    /// One console command through the socket; its stdout.
    func ctl(_ command: String...) throws -> String {
        let r = try Enbeacon.run(["ctl", "--data", data] + command)
        return r.stdout
    }

    /// `ctl --json sync now` in the background while `ctl status` is asked again and again: the sync's report,
    /// the agent's peak RSS, and how long the slowest status took.
    func syncNowWatchingStatus(timeout: TimeInterval = 900) throws -> Watch {
        let sync = Process()
        let out = Pipe()
        sync.executableURL = Enbeacon.binary
        sync.arguments = ["ctl", "--data", data, "--json", "sync", "now"]
        sync.standardOutput = out
        sync.standardError = FileHandle.nullDevice
        sync.standardInput = FileHandle.nullDevice
        let started = Date()
        try sync.run()
        var watch = Watch(report: nil, peakKiB: 0, answers: 0, slowestMilliseconds: 0, seconds: 0)
        let deadline = started.addingTimeInterval(timeout)
        while sync.isRunning && Date() < deadline {
            let asked = Date()
            let answer = try Enbeacon.run(["ctl", "--data", data, "--json", "status"])
            let milliseconds = Int(Date().timeIntervalSince(asked) * 1000)
            if answer.status == 0 {
                watch.answers += 1
                watch.slowestMilliseconds = max(watch.slowestMilliseconds, milliseconds)
            } else {
                watch.slowestMilliseconds = Int.max
                watch.failedAnswers.append("exit \(answer.status) after \(milliseconds) ms: \(answer.stderr)")
            }
            watch.peakKiB = max(watch.peakKiB, status("VmHWM") ?? 0)
            usleep(200_000)  // the sampling interval, not a wait for anything
        }
        if sync.isRunning { sync.terminate() }
        let text = out.fileHandleForReading.readDataToEndOfFile()
        sync.waitUntilExit()
        watch.seconds = Int(Date().timeIntervalSince(started))
        watch.peakKiB = max(watch.peakKiB, status("VmHWM") ?? 0)
        watch.report = try JSONSerialization.jsonObject(with: text) as? [String: Any]
        return watch
    }

    /// Temporary downloads still in the data directory.
    var downloadsLeft: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: data)) ?? []).filter { $0.hasSuffix(".download") }
    }

    func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
    }
}
