import ENCore
import Foundation
import Testing
import TestSupport

/// `enbeacon export decode` and `enbeacon export verify` through the binary: output shapes, exit codes,
/// one-line reasons, on the published exports in Tests/Fixtures and on exports this test writes and signs.
@Suite struct ExportCommandTests {
    static let id = VerificationKeyID(id: "999", version: "v1")

    /// The absolute path of a published export or key, given relative to Tests/Fixtures/gaen/exports.
    static func fixture(_ path: String) throws -> String {
        try TestFixtures.path(TestFixtures.gaenExports + "/" + path)
    }

    @Test func decodesGooglesSampleFile() throws {
        let file = try Self.fixture("google-en-internals/sample_diagnosis_key_file.zip")
        let r = try Enbeacon.run(["export", "decode", file])
        #expect(r.status == 0 && r.stderr.isEmpty)
        let lines = r.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains("start: 1593633600 (2020-07-01T20:00:00Z)"))
        #expect(lines.contains("region: US"))
        #expect(lines.contains("batch: 1 of 1"))
        #expect(lines.contains("signature info: 310-v1 1.2.840.10045.4.3.2"))
        #expect(lines.contains("keys: 140 records, revised keys: 0 records"))
        // rolling_period is absent in this file: the proto2 default 144.
        #expect(lines.contains("key 0003d60b188f19856e8b3dd29a0c463b rsin 2653920 (2020-06-17T00:00:00Z) period 144 trl 3 report unknown onset -"))
        #expect(lines.filter { $0.hasPrefix("key ") }.count == 140)
        #expect(lines.last == "skipped: none")

        let json = try Self.jsonObject(try Enbeacon.run(["export", "decode", file, "--json"]))
        let header = try #require(json["header"] as? [String: Any])
        #expect(header["region"] as? String == "US" && header["startTime"] as? String == "2020-07-01T20:00:00Z")
        #expect(header["keyRecords"] as? Int == 140)
        let keys = try #require(json["keys"] as? [[String: Any]])
        #expect(keys.count == 140)
        #expect(keys[0]["keyData"] as? String == "0003d60b188f19856e8b3dd29a0c463b")
        #expect(keys[0]["rollingPeriod"] as? Int == 144 && keys[0]["transmissionRiskLevel"] as? Int == 3)
        #expect(keys[0]["daysSinceOnsetOfSymptoms"] is NSNull)
        #expect((json["signatures"] as? [[String: Any]])?.first?["verificationKeyId"] as? String == "310")
        #expect((json["skipped"] as? [String: Any])?["total"] as? Int == 0)
    }

    @Test func verifiesAndRejectsFixturesAsTheReadmeSays() throws {
        func verify(_ file: String, _ key: String) throws -> Enbeacon.Result {
            try Enbeacon.run(["export", "verify", try Self.fixture(file), "--key", try Self.fixture(key)])
        }
        let good = try verify("cwa-app-android/keys.bin.zip", "cwa-app-android/public_key_de.rki.coronawarnapp-dev.pem")
        #expect(good.status == 0 && good.stdout.contains("signed by 262-v1") && good.stdout.contains("24131 keys"))
        let prod = try verify("cwa-app-android/keys.bin.zip", "cwa-app-android/public_key_de.rki.coronawarnapp-PROD.pem")
        #expect(prod.status == 1 && prod.stderrLines.count == 1 && prod.stderr.contains("signature by 262-v1 does not verify"))
        let k1 = try verify("koronavilkku-huawei-secp256k1/batch_test.zip", "koronavilkku-huawei-secp256k1/public_key_secp256k1_test.pem")
        #expect(k1.status == 1 && k1.stderrLines.count == 1 && k1.stderr.contains("curve secp256k1"))
        let raw = try verify("nl-coronamelder-android/export-no-sig.zip", "google-ens-server/public.pem")
        #expect(raw.status == 1 && raw.stderr.contains("64 raw bytes"))
    }

    @Test func decodesAWrittenExportAsTextAndJSON() throws {
        let dir = try TestDirectory()
        let export = try WrittenExport(keys: WrittenExport.keys(count: 12), revised: 1)
        let zip = try dir.write("e.zip", export.zip)
        let text = try Enbeacon.run(["export", "decode", zip])
        #expect(text.status == 0 && text.stderr.isEmpty)
        let lines = text.stdout.split(separator: "\n").map(String.init)
        #expect(lines[0] == "file: \(zip)")
        #expect(lines[1].hasPrefix("format: zip (export.bin ") && lines[1].contains("deflated"))
        #expect(lines.contains("region: XX"))
        #expect(lines.contains("keys: 12 records, revised keys: 1 records"))
        #expect(lines.filter { $0.hasPrefix("key ") } == export.keys.map { "key " + Self.text($0) })
        #expect(lines.filter { $0.hasPrefix("revised ") }.count == 1)
        #expect(lines.last == "skipped: none")

        let json = try Self.jsonObject(try Enbeacon.run(["export", "decode", "--json", zip]))
        let keys = try #require(json["keys"] as? [[String: Any]])
        #expect(keys.map { $0["keyData"] as? String } == export.keys.map(\.tek.keyData.hex))
        #expect(keys.map { $0["rollingStartIntervalNumber"] as? Int } == export.keys.map { Int($0.tek.rollingStart.value) })
        #expect(keys.map { $0["reportType"] as? String } == export.keys.map(\.reportType.description))
        #expect(keys.map { $0["daysSinceOnsetOfSymptoms"] as? Int } == export.keys.map(\.daysSinceOnsetOfSymptoms))
        let revised = try #require(json["revisedKeys"] as? [[String: Any]])
        #expect(revised.count == 1 && revised[0]["reportType"] as? String == "revoked")

        // The same export.bin on its own decodes too.
        let bare = try dir.write("export.bin", try export.exportBin())
        let bareText = try Enbeacon.run(["export", "decode", bare])
        #expect(bareText.status == 0 && bareText.stdout.contains("format: bare export.bin"))
        #expect(bareText.stdout.contains("signatures: none (no export.sig)"))
    }

    /// Strings from the file are escaped in JSON, whatever bytes they hold.
    @Test func jsonEscapesHostileStrings() throws {
        let dir = try TestDirectory()
        let region = "q\"b\\n\nt\tc\u{01}é"
        let export = try WrittenExport(keys: WrittenExport.keys(count: 1), region: region)
        let json = try Self.jsonObject(try Enbeacon.run(["export", "decode", "--json", try dir.write("e.zip", export.zip)]))
        #expect((json["header"] as? [String: Any])?["region"] as? String == region)
    }

    @Test func verifyAcceptsTheRightKeyAndNamesWhatIsWrongOtherwise() throws {
        let dir = try TestDirectory()
        let export = try WrittenExport(keys: WrittenExport.keys(count: 5))
        let zip = try dir.write("e.zip", export.zip)
        let right = try dir.write("right.pem", Array(export.signingKey.publicKeyPEM.utf8))
        let wrong = try dir.write("wrong.pem", Array(try SigningKey.generateP256().publicKeyPEM.utf8))

        let ok = try Enbeacon.run(["export", "verify", zip, "--key", right])
        #expect(ok.status == 0 && ok.stderr.isEmpty)
        #expect(ok.stdout == "verified: \(zip) signed by 999-v1 (--key \(right)); region XX, 2020-09-13T12:26:40Z to "
                + "2020-09-14T12:26:40Z, batch 1 of 1, 5 keys, 0 revised\n")
        let json = try Self.jsonObject(try Enbeacon.run(["export", "verify", zip, "--key", right, "--json"]))
        #expect(json["verified"] as? Bool == true && json["verifiedBy"] as? [String] == ["999-v1"])

        let bad = try Enbeacon.run(["export", "verify", zip, "--key", wrong])
        #expect(bad.status == 1 && bad.stdout.isEmpty && bad.stderrLines.count == 1)
        #expect(bad.stderr == "enbeacon export verify: \(zip): signature by 999-v1 does not verify\n")
        // Options may come before FILE.
        #expect(try Enbeacon.run(["export", "verify", "--key", right, zip]).status == 0)
        // Either key may be the one: the right one among wrong ones verifies.
        #expect(try Enbeacon.run(["export", "verify", zip, "--key", wrong, "--key", right]).status == 0)
        let both = try Enbeacon.run(["export", "verify", zip, "--key", wrong, "--key", wrong])
        #expect(both.status == 1 && both.stderrLines.count == 1 && both.stderr.contains("no --key verifies it"))

        // Strict key ids.
        #expect(try Enbeacon.run(["export", "verify", zip, "--key", right, "--key-id", "999", "--key-version", "v1"]).status == 0)
        let other = try Enbeacon.run(["export", "verify", zip, "--key", right, "--key-id", "262", "--key-version", "v1"])
        #expect(other.status == 1 && other.stderr.contains("no configured verification key for 999-v1"))
    }

    @Test func verifyRefusesKeysOffP256() throws {
        let dir = try TestDirectory()
        let zip = try dir.write("e.zip", try WrittenExport(keys: WrittenExport.keys(count: 1)).zip)
        for (curve, expected) in [("secp256k1", "curve secp256k1"), ("P-384", "curve secp384r1"), ("ED25519", "not an elliptic-curve key")] {
            let pem = try dir.write("\(curve).pem", Array(try OpenSSLTool.publicKeyPEM(curve: curve).utf8))
            let r = try Enbeacon.run(["export", "verify", zip, "--key", pem])
            #expect(r.status == 1 && r.stderrLines.count == 1 && r.stderr.contains(expected), "\(curve): \(r.stderr)")
        }
        let garbage = try dir.write("garbage.pem", Array("-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n".utf8))
        let r = try Enbeacon.run(["export", "verify", zip, "--key", garbage])
        #expect(r.status == 1 && r.stderr.contains("not a readable public key"))
        let missing = try Enbeacon.run(["export", "verify", zip, "--key", dir.path("absent.pem")])
        #expect(missing.status == 1 && missing.stderr.contains("No such file"))
    }

    @Test func corruptedFilesAreRefusedWithOneLine() throws {
        let dir = try TestDirectory()
        let export = try WrittenExport(keys: WrittenExport.keys(count: 20), compression: .stored)
        let key = try dir.write("k.pem", Array(export.signingKey.publicKeyPEM.utf8))
        var flipped = export.zip
        flipped[200] ^= 0x01  // inside export.bin's keys: the CRC-32 catches it
        var resigned = export.zip
        resigned.removeLast(30)
        let cases: [(String, [UInt8], String)] = [
            ("flipped", flipped, "fails its CRC-32 check"),
            ("truncated", resigned, "not a zip archive"),
            ("text", Array("hello world, this is not an export".utf8), "neither a zip archive nor an export.bin"),
            ("empty", [], "neither a zip archive nor an export.bin"),
        ]
        for (name, bytes, reason) in cases {
            let path = try dir.write(name, bytes)
            for arguments in [["export", "verify", path, "--key", key], ["export", "decode", path]] {
                let r = try Enbeacon.run(arguments)
                #expect(r.status == 1 && r.stdout.isEmpty && r.stderrLines.count == 1, "\(name) \(arguments[1]): \(r.stderr)")
                #expect(r.stderr.contains(reason), "\(name): \(r.stderr)")
            }
        }
        let directory = try Enbeacon.run(["export", "decode", dir.url.path])
        #expect(directory.status == 1 && directory.stderr.contains("is a directory"))
    }

    /// Random damage never crashes either command: exit 0 or 1, and a refusal is one line.
    @Test func mutatedFilesNeverCrashTheCommands() throws {
        let dir = try TestDirectory()
        let export = try WrittenExport(keys: WrittenExport.keys(count: 30))
        let key = try dir.write("k.pem", Array(export.signingKey.publicKeyPEM.utf8))
        var g = SystemRandomNumberGenerator()
        for trial in 0..<40 {
            var bytes = export.zip
            if trial % 4 == 3 {
                bytes.removeLast(Int.random(in: 1..<bytes.count, using: &g))
            } else {
                for _ in 0..<(1 + trial % 3) { bytes[Int.random(in: 0..<bytes.count, using: &g)] = UInt8.random(in: 0...255, using: &g) }
            }
            let path = try dir.write("m\(trial).zip", bytes)
            for arguments in [["export", "verify", path, "--key", key], ["export", "decode", path, "--json"]] {
                let r = try Enbeacon.run(arguments)
                #expect(r.status == 0 || (r.status == 1 && r.stderrLines.count == 1), "trial \(trial) \(arguments[1]): \(r.status) \(r.stderr)")
            }
        }
    }

    @Test(arguments: [
        (["export"], "missing decode or verify"),
        (["export", "unpack", "f"], "unknown subcommand 'unpack'"),
        (["export", "decode"], "decode: missing FILE"),
        (["export", "decode", "f", "--verbose"], "unknown option --verbose"),
        (["export", "decode", "f", "g"], "unexpected argument 'g'"),
        (["export", "verify", "f"], "missing --key PEM"),
        (["export", "verify", "--key", "k"], "verify: missing FILE"),
        (["export", "verify", "f", "--key"], "--key needs a value"),
        (["export", "verify", "f", "--key", "k", "--key-id", "262"], "--key-id needs --key-version"),
        (["export", "verify", "f", "--key", "k", "--key-version", "v1"], "--key-version needs --key-id"),
    ])
    func usageErrorsExitTwoWithOneLine(arguments: [String], message: String) throws {
        let r = try Enbeacon.run(arguments)
        #expect(r.isOneLineUsageError)
        #expect(r.stderr.contains(message), "stderr was: \(r.stderr)")
    }

    @Test func helpExplainsKeyIDs() throws {
        let r = try Enbeacon.run(["export", "--help"])
        #expect(r.status == 0 && r.stdout.contains("--key-id ID") && r.stdout.contains("whatever key id"))
        #expect(try Enbeacon.run(["--help"]).stdout.contains("export "))
    }

    static func text(_ key: DiagnosisKey) -> String {
        let onset = key.daysSinceOnsetOfSymptoms.map(String.init) ?? "-"
        return "\(key.tek.keyData.hex) rsin \(key.tek.rollingStart.value) (\(UTCDateTime(unixSeconds: key.tek.rollingStart.unixSeconds)))"
            + " period \(key.tek.rollingPeriod) trl \(key.transmissionRiskLevel) report \(key.reportType) onset \(onset)"
    }

    static func jsonObject(_ r: Enbeacon.Result) throws -> [String: Any] {
        #expect(r.status == 0, "stderr: \(r.stderr)")
        #expect(r.stdout.hasSuffix("}\n") && r.stdout.split(separator: "\n").count == 1)
        return try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
    }
}

/// A signed export written by ENCore's `ExportWriter` for the command-line tests.
struct WrittenExport {
    let signingKey: SigningKey
    let keys: [DiagnosisKey]
    let zip: [UInt8]

    init(keys: [DiagnosisKey], revised: Int = 0, region: String = "XX", batch: (Int32, Int32) = (1, 1),
         compression: ZipEntry.Method = .deflated, revisedKeys: [DiagnosisKey] = [],
         start: UInt64 = 1_600_000_000, signingKey: SigningKey? = nil) throws {
        let key = try signingKey ?? SigningKey.generateP256()
        self.signingKey = key
        self.keys = keys
        let revisions = keys.prefix(revised).map { DiagnosisKey(tek: $0.tek, reportType: .revoked) } + revisedKeys
        zip = try ExportWriter.archive(
            descriptor: ExportDescriptor(startTimestamp: start, endTimestamp: start + 86_400, region: region,
                                         batchNum: batch.0, batchSize: batch.1),
            signers: [ExportSigner(key: key, keyID: ExportCommandTests.id)], keys: keys, revisedKeys: revisions,
            compression: compression)
    }

    /// Keys with every field in use, random key data.
    static func keys(count: Int, rollingStart: UInt32 = 2_666_592) -> [DiagnosisKey] {
        (0..<count).map { i in
            var g = SystemRandomNumberGenerator()
            var tek = TemporaryExposureKey.generate(for: ENIntervalNumber(rollingStart), using: &g)
            tek.rollingPeriod = i % 3 == 0 ? 144 : UInt32(1 + i % 144)
            return DiagnosisKey(tek: tek, transmissionRiskLevel: i % 9,
                                reportType: [.confirmedTest, .unknown, .selfReport, .confirmedClinicalDiagnosis][i % 4],
                                daysSinceOnsetOfSymptoms: i % 2 == 0 ? nil : i % 15 - 7)
        }
    }
}

/// A fresh temporary directory, removed when the value goes away.
final class TestDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("enbeacon-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    @discardableResult
    func write(_ name: String, _ bytes: [UInt8]) throws -> String {
        try Data(bytes).write(to: url.appendingPathComponent(name))
        return path(name)
    }

    @discardableResult
    func write(_ name: String, text: String) throws -> String { try write(name, Array(text.utf8)) }
}

/// Keys of other types and curves, made by the `openssl` command-line tool (test-only).
enum OpenSSLTool {
    static func publicKeyPEM(curve: String) throws -> String {
        let generate = curve == "ED25519" ? ["genpkey", "-algorithm", "ED25519"]
                                          : ["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:\(curve)"]
        let privateKey = try run(generate, input: Data())
        return String(decoding: try run(["pkey", "-pubout"], input: privateKey), as: UTF8.self)
    }

    private static func run(_ arguments: [String], input: Data) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["openssl"] + arguments
        let stdin = Pipe(), stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        try process.run()
        stdin.fileHandleForWriting.write(input)
        try stdin.fileHandleForWriting.close()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw CocoaError(.featureUnsupported) }
        return output
    }
}
