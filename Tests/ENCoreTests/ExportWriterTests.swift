import COpenSSL
import ENCore
import Foundation
import Testing

/// The key-server side: exports written by `ExportWriter` and signed by `SigningKey` decode and verify
/// with the reader (`ExportFile`, `VerificationKeyring`), byte for byte what the test support builds.
@Suite struct ExportWriterTests {
    static let id = VerificationKeyID(id: "999", version: "v1")
    static let descriptor = ExportDescriptor(startTimestamp: 1_600_000_000, endTimestamp: 1_600_086_400, region: "XX")

    /// Keys exercising every field: report types, onset present and absent (negative too), short periods.
    static func sampleKeys(count: Int = 40) -> [DiagnosisKey] {
        var g = SplitMix64(seed: 7)
        return (0..<count).map { i in
            let tek = TemporaryExposureKey(keyData: g.keyData(),
                                           rollingStart: ENIntervalNumber(2_650_000 + UInt32(i % 14) * 144),
                                           rollingPeriod: i % 5 == 0 ? UInt32(1 + i % 144) : 144)
            return DiagnosisKey(tek: tek, transmissionRiskLevel: i % 9,
                                reportType: [.unknown, .confirmedTest, .confirmedClinicalDiagnosis, .selfReport][i % 4],
                                daysSinceOnsetOfSymptoms: i % 3 == 0 ? nil : (i % 29) - 14)
        }
    }

    /// The same key as the test support writes it.
    static func testKey(_ key: DiagnosisKey) -> ExportTestKey {
        ExportTestKey(keyData: key.tek.keyData.bytes, transmissionRiskLevel: Int32(key.transmissionRiskLevel),
                      rollingStart: Int32(key.tek.rollingStart.value), rollingPeriod: Int32(key.tek.rollingPeriod),
                      reportType: key.reportType == .unknown ? nil : Int32(key.reportType.rawValue),
                      daysSinceOnset: key.daysSinceOnsetOfSymptoms.map(Int32.init))
    }

    static func keyring(_ key: SigningKey, id: VerificationKeyID = id) throws -> VerificationKeyring {
        var keyring = VerificationKeyring()
        try keyring.add(pem: key.publicKeyPEM, for: id)
        return keyring
    }

    @Test(arguments: [ZipEntry.Method.deflated, .stored])
    func writtenExportDecodesAndVerifies(_ method: ZipEntry.Method) throws {
        let key = try SigningKey.generateP256()
        let keys = Self.sampleKeys()
        let revoked = DiagnosisKey(tek: keys[1].tek, transmissionRiskLevel: 0, reportType: .revoked)
        let zip = try ExportWriter.archive(descriptor: Self.descriptor, signers: [ExportSigner(key: key, keyID: Self.id)],
                                           keys: keys, revisedKeys: [revoked], compression: method)
        #expect(try TestZip(zip).entries.map(\.name) == ["export.bin", "export.sig"])
        #expect(try TestZip(zip).entries.allSatisfy { $0.method == method })

        let verified = try Self.keyring(key).verify(try TestExport(zip: zip))
        #expect(verified.verifiedBy == [Self.id])
        #expect(verified.header.startTimestamp == 1_600_000_000 && verified.header.endTimestamp == 1_600_086_400)
        #expect(verified.header.region == "XX")
        #expect(verified.header.batchNum == 1 && verified.header.batchSize == 1)
        #expect(verified.header.signatureInfos == [SignatureInfo(verificationKeyVersion: "v1", verificationKeyID: "999")])
        #expect(verified.header.keyRecordCount == keys.count && verified.header.revisedKeyRecordCount == 1)
        var read: [DiagnosisKey] = []
        let skipped = try verified.forEachKey(in: .keys) { read.append($0) }
        #expect(skipped.total == 0)
        #expect(read == keys)
        var revised: [DiagnosisKey] = []
        try verified.forEachKey(in: .revisedKeys) { revised.append($0) }
        #expect(revised == [revoked])
    }

    /// export.bin and export.sig are exactly what the test support's independent writer produces for the
    /// same content (the signature itself is randomised, so it is taken from the written file).
    @Test func bytesEqualTheTestSupportsEncoding() throws {
        let key = try SigningKey.generateP256()
        let keys = Self.sampleKeys()
        let zip = try ExportWriter.archive(descriptor: Self.descriptor, signers: [ExportSigner(key: key, keyID: Self.id)],
                                           keys: keys)
        let archive = try TestExport(zip: zip)
        let expected = ExportTestFile(keys: keys.map(Self.testKey))
        #expect(archive.exportBin == expected.exportBin)
        let signatures = try TEKSignature.decodeList(try #require(archive.exportSig))
        #expect(signatures.count == 1)
        #expect((70...72).contains(signatures[0].signature.count))
        #expect(archive.exportSig == ExportTestFile.exportSig([(expected.signatureInfos[0], signatures[0].signature)]))
    }

    /// Key rotation: two signers, two SignatureInfos, two signatures; a phone with either key accepts it.
    @Test func twoSignersEachVerify() throws {
        let old = try SigningKey.generateP256(), new = try SigningKey.generateP256()
        let oldID = VerificationKeyID(id: "262", version: "v1"), newID = VerificationKeyID(id: "262", version: "v2")
        let zip = try ExportWriter.archive(
            descriptor: Self.descriptor,
            signers: [ExportSigner(key: new, keyID: newID), ExportSigner(key: old, keyID: oldID)],
            keys: Self.sampleKeys(count: 3))
        let archive = try TestExport(zip: zip)
        #expect(try archive.header().signatureInfos.map(\.keyID) == [newID, oldID])
        #expect(try Self.keyring(old, id: oldID).verify(archive).verifiedBy == [oldID])
        #expect(try Self.keyring(new, id: newID).verify(archive).verifiedBy == [newID])
        // The old key under the new name: that signature must fail, not be skipped.
        #expect(throws: ExportError.signatureInvalid(newID)) { try Self.keyring(old, id: newID).verify(archive) }
    }

    @Test func multiFileBatchCarriesItsPosition() throws {
        let key = try SigningKey.generateP256()
        var d = Self.descriptor
        (d.batchNum, d.batchSize) = (2, 3)
        let zip = try ExportWriter.archive(descriptor: d, signers: [ExportSigner(key: key, keyID: Self.id)], keys: [])
        let verified = try Self.keyring(key).verify(try TestExport(zip: zip))
        #expect(verified.batch.number == 2 && verified.batch.batch.batchSize == 3)
        let signature = try TEKSignature.decodeList(try TestExport(zip: zip).exportSig!)[0]
        #expect(signature.batchNum == 2 && signature.batchSize == 3)
    }

    /// Other zip readers agree: Python's zipfile checks every CRC-32 and reads both entries.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/python3")
                   || ProcessInfo.processInfo.environment["PATH"]?.contains("python") == true))
    func pythonZipfileReadsTheArchive() throws {
        let key = try SigningKey.generateP256()
        let zip = try ExportWriter.archive(descriptor: Self.descriptor, signers: [ExportSigner(key: key, keyID: Self.id)],
                                           keys: Self.sampleKeys(count: 500))
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("enbeacon-writer-\(UUID()).zip")
        try Data(zip).write(to: path)
        defer { try? FileManager.default.removeItem(at: path) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", """
            import sys, zipfile
            z = zipfile.ZipFile(sys.argv[1])
            assert z.testzip() is None
            print(",".join(f"{i.filename}:{i.compress_type}:{i.file_size}" for i in z.infolist()))
            """, path.path]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        process.waitUntilExit()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationStatus == 0)
        let archive = try TestExport(zip: zip)
        #expect(text.trimmingCharacters(in: .whitespacesAndNewlines)
            == "export.bin:8:\(archive.exportBin.count),export.sig:8:\(archive.exportSig!.count)")
    }

    @Test func signingKeyRoundTripsThroughPEM() throws {
        let key = try SigningKey.generateP256()
        #expect(key.privateKeyPEM.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        #expect(key.publicKeyPEM.hasPrefix("-----BEGIN PUBLIC KEY-----"))
        let loaded = try SigningKey(pem: key.privateKeyPEM)
        #expect(loaded.publicKeyPEM == key.publicKeyPEM)
        #expect(loaded.publicKeyDER == key.publicKeyDER)
        // An export signed by the reloaded key verifies with the original's public key.
        let zip = try ExportWriter.archive(descriptor: Self.descriptor, signers: [ExportSigner(key: loaded, keyID: Self.id)],
                                           keys: Self.sampleKeys(count: 2))
        _ = try Self.keyring(key).verify(try TestExport(zip: zip))
        _ = try key.verificationKey()
    }

    @Test func signingKeysOffP256AreRefused() throws {
        for curve in ["secp256k1", "P-384"] {
            let pem = Self.privatePEM(of: ExportTestSigner(curve: curve))
            let error = try #require(throws: SigningKeyError.self) { try SigningKey(pem: pem) }
            guard case .notP256(.wrongCurve) = error else {
                Issue.record("\(curve): \(error)")
                continue
            }
        }
        let ed = try #require(throws: SigningKeyError.self) { try SigningKey(pem: Self.privatePEM(of: ExportTestSigner(curve: "ED25519"))) }
        guard case .notP256(.notEllipticCurve) = ed else { Issue.record("ED25519: \(ed)"); return }
        #expect(throws: SigningKeyError.self) { try SigningKey(pem: "not a key") }
        // A public key is not a private key.
        #expect(throws: SigningKeyError.self) { try SigningKey(pem: try SigningKey.generateP256().publicKeyPEM) }
    }

    @Test func invalidKeysAndBatchesAreRefused() throws {
        let signer = ExportSigner(key: try SigningKey.generateP256(), keyID: Self.id)
        let good = Self.sampleKeys(count: 1)[0]
        func refuses(_ key: DiagnosisKey, _ list: ExportKeyList = .keys, _ reason: String) throws {
            let writer = try ExportWriter(descriptor: Self.descriptor, signers: [signer], output: InMemoryExportOutput())
            try writer.add(good)
            let error = try #require(throws: ExportWriteError.self) { try writer.add(key, to: list) }
            guard case .invalidKey(index: 1, let why) = error, why.contains(reason) else {
                Issue.record("expected \(reason), got \(error)")
                return
            }
        }
        var k = good
        k.tek.rollingPeriod = 0
        try refuses(k, .keys, "rolling_period")
        k.tek.rollingPeriod = 145
        try refuses(k, .keys, "rolling_period")
        k = good
        k.daysSinceOnsetOfSymptoms = Int(Int32.max) + 1
        try refuses(k, .keys, "days_since_onset")
        k = good
        k.reportType = .recursive
        try refuses(k, .keys, "RECURSIVE")
        k.reportType = .revoked
        try refuses(k, .keys, "REVOKED")
        k = good
        k.transmissionRiskLevel = 9
        try refuses(k, .keys, "transmission_risk_level")
        k = good
        k.tek.rollingStart = ENIntervalNumber(UInt32(Int32.max) + 1)
        try refuses(k, .keys, "rolling_start")

        for (num, size) in [(0, 1), (2, 1), (1, 1_000_001)] as [(Int32, Int32)] {
            var d = Self.descriptor
            (d.batchNum, d.batchSize) = (num, size)
            #expect(throws: ExportWriteError.batchOutOfRange(batchNum: num, batchSize: size)) {
                try ExportWriter(descriptor: d, signers: [signer], output: InMemoryExportOutput())
            }
        }
        #expect(throws: ExportWriteError.noSigners) {
            try ExportWriter(descriptor: Self.descriptor, signers: [], output: InMemoryExportOutput())
        }
        let writer = try ExportWriter(descriptor: Self.descriptor, signers: [signer], output: InMemoryExportOutput())
        _ = try writer.finish()
        #expect(throws: ExportWriteError.finished) { try writer.add(good) }
    }

    /// Two million keys (a 14-day German window) pass through the writer into an output that keeps nothing.
    /// The RSS growth is printed, not asserted: other suites share this process and allocate concurrently.
    /// (`enbeacon bench match --export-file`, a process of its own, writes and matches such a file in 23 MB.)
    @Test func twoMillionKeysStreamThroughTheWriter() throws {
        struct CountingOutput: ExportOutput {
            var count = 0
            mutating func append(_ bytes: UnsafeRawBufferPointer) throws(ExportWriteError) { count += bytes.count }
            mutating func overwrite(at offset: Int, with bytes: UnsafeRawBufferPointer) throws(ExportWriteError) {}
        }
        let writer = try ExportWriter(descriptor: Self.descriptor,
                                      signers: [ExportSigner(key: try SigningKey.generateP256(), keyID: Self.id)],
                                      compression: .stored, output: CountingOutput())
        let before = ExportProcessMemory.residentBytes()
        var peak = before ?? 0
        var g = SplitMix64(seed: 2)
        for i in 0..<2_000_000 {
            let tek = TemporaryExposureKey(keyData: g.keyData(),
                                           rollingStart: ENIntervalNumber(2_740_000 + UInt32(i % 14) * 144))
            try writer.add(DiagnosisKey(tek: tek, transmissionRiskLevel: i % 9))
            if i % 250_000 == 0, let now = ExportProcessMemory.residentBytes() { peak = max(peak, now) }
        }
        let output = try writer.finish()
        #expect(writer.keyCount == 2_000_000)
        // Each record is 32 bytes: tag and length (2), key_data (18), TRL (2), RSIN (5), period (3), report
        // type (2). Around them: export.bin's header, export.sig, the zip's headers and directory.
        let empty = try TestExport(zip: ExportWriter.archive(
            descriptor: Self.descriptor, signers: [ExportSigner(key: try SigningKey.generateP256(), keyID: Self.id)],
            keys: [DiagnosisKey]())).exportBin.count
        #expect((200...500).contains(output.count - empty - 2_000_000 * 32))
        if let before {
            print("export writer: 2,000,000 keys, \(output.count) bytes, RSS growth \((peak - before) / 1024) KiB")
        }
    }
}

extension ExportWriterTests {
    /// PKCS#8 PEM of a test-support key, for the refusal tests.
    static func privatePEM(of signer: ExportTestSigner) -> String {
        let bio = BIO_new(BIO_s_mem())!
        defer { BIO_free(bio) }
        precondition(PEM_write_bio_PrivateKey(bio, signer.key, nil, nil, 0, nil, nil) == 1)
        var pem: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 256)
        while true {
            let n = BIO_read(bio, &chunk, Int32(chunk.count))
            if n <= 0 { break }
            pem += chunk.prefix(Int(n))
        }
        return String(decoding: pem, as: UTF8.self)
    }
}

extension SplitMix64 {
    /// Reproducible key data for the writer's tests.
    mutating func keyData() -> Bytes16 {
        let words = [next(), next()]
        return words.withUnsafeBytes { Bytes16(loading: $0) }
    }
}
