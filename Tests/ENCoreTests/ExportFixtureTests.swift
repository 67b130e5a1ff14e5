import ENCore
import Foundation
import Testing
import TestSupport

/// "Every file in Tests/Fixtures/gaen/exports is decoded, verified or rejected exactly as its README says":
/// header fields, key count, first and last key from fixtures_manifest.json, and the verdict.
@Suite struct ExportFixtureTests {
    /// Paths of the files below are relative to this folder of Tests/Fixtures.
    static let exports = TestFixtures.gaenExports + "/"

    /// What the README says should happen to each file.
    enum Verdict: Sendable {
        /// Verifies with the PEM at this path, configured under the key id and version in the file.
        case verifies(pem: String)
        /// Rejected with exactly this reason by a keyring holding every P-256 key in the folder.
        case rejected(ExportError)
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var file: String
        var verdict: Verdict
        var testDescription: String { file }
    }

    static let cases: [Case] = [
        Case(file: "google-en-internals/sample_diagnosis_key_file.zip",
             verdict: .verifies(pem: "google-en-internals/public_key_310-v1.pem")),
        Case(file: "google-ens-server/testExport-2-records-1-of-1.zip",
             verdict: .verifies(pem: "google-ens-server/public.pem")),
        Case(file: "cwa-app-android/keys.bin.zip",
             verdict: .verifies(pem: "cwa-app-android/public_key_de.rki.coronawarnapp-dev.pem")),
        // Signed with secp256k1: the key cannot be configured at all (see secp256k1KeyIsRefused), so no key matches.
        Case(file: "koronavilkku-huawei-secp256k1/batch_test.zip",
             verdict: .rejected(.noConfiguredKey([VerificationKeyID(id: "244", version: "v1")]))),
        Case(file: "koronavilkku-huawei-secp256k1/batch_test_2.zip",
             verdict: .rejected(.noConfiguredKey([VerificationKeyID(id: "244", version: "v1")]))),
        Case(file: "koronavilkku-huawei-secp256k1/batch_test_invalid_key.zip",
             verdict: .rejected(.noConfiguredKey([VerificationKeyID(id: "244", version: "v1")]))),
        Case(file: "nl-coronamelder-android/export-no-sig.zip",
             verdict: .rejected(.rawSignature(VerificationKeyID(id: "204", version: "v1")))),
        Case(file: "nl-coronamelder-android/export-incorrect-sig.zip",
             verdict: .rejected(.rawSignature(VerificationKeyID(id: "204", version: "v1")))),
    ]

    static let p256KeysInFolder = [
        "google-en-internals/public_key_310-v1.pem",
        "google-ens-server/public.pem",
        "cwa-app-android/public_key_de.rki.coronawarnapp-dev.pem",
        "cwa-app-android/public_key_de.rki.coronawarnapp-PROD.pem",
    ]

    static func manifestEntry(_ file: String) throws -> [String: Any] {
        let manifest = try TestFixtures.jsonObject(exports + "fixtures_manifest.json")
        let entries = try #require(manifest["fixtures"] as? [[String: Any]])
        return try #require(entries.first { $0["file"] as? String == file }, "\(file) missing from the manifest")
    }

    static func bytes(_ path: String) throws -> [UInt8] {
        Array(try TestFixtures.data(exports + path))
    }

    static func pem(_ path: String) throws -> String {
        try TestFixtures.text(exports + path)
    }

    /// The keyring a device would have if it trusted the key listed for `file`.
    static func keyring(pem path: String, header: ExportHeader) throws -> VerificationKeyring {
        var keyring = VerificationKeyring()
        try keyring.add(pem: try pem(path), for: try #require(header.signatureInfos.first).keyID)
        return keyring
    }

    @Test func everyFixtureIsCoveredByThisTable() throws {
        let manifest = try TestFixtures.jsonObject(Self.exports + "fixtures_manifest.json")
        let listed = Set((manifest["fixtures"] as? [[String: Any]] ?? []).compactMap { $0["file"] as? String })
        let folder = try TestFixtures.path(Self.exports)
        let onDisk = Set(try #require(FileManager.default.enumerator(atPath: folder)).compactMap { $0 as? String }
            .filter { $0.hasSuffix(".zip") })
        #expect(!listed.isEmpty)
        #expect(listed == onDisk)
        #expect(Set(Self.cases.map(\.file)) == listed)
    }

    @Test(arguments: cases)
    func headerAndSignatureListMatchTheManifest(_ fixture: Case) throws {
        let entry = try Self.manifestEntry(fixture.file)
        let zipBytes = try Self.bytes(fixture.file)
        #expect(ExportTestDigest.sha256Hex(zipBytes) == entry["sha256"] as? String)
        let names = try TestZip(zipBytes).entries.map(\.name).sorted()
        #expect(names == (entry["zip_entries"] as? [String])?.sorted())

        let archive = try TestExport(zip: zipBytes)
        #expect(archive.exportBin.count == entry["export_bin_size"] as? Int)
        #expect(ExportTestDigest.sha256Hex(archive.exportBin) == entry["export_bin_sha256"] as? String)

        let header = try archive.header()
        #expect(header.startTimestamp == (entry["start_timestamp"] as? NSNumber)?.uint64Value)
        #expect(header.endTimestamp == (entry["end_timestamp"] as? NSNumber)?.uint64Value)
        #expect(header.region == entry["region"] as? String)
        #expect(Int(header.batchNum) == entry["batch_num"] as? Int)
        #expect(Int(header.batchSize) == entry["batch_size"] as? Int)
        #expect(header.keyRecordCount == entry["num_keys"] as? Int)
        #expect(header.revisedKeyRecordCount == entry["num_revised_keys"] as? Int)
        let infos = try #require(entry["signature_infos"] as? [[String: Any]])
        #expect(header.signatureInfos == infos.map(Self.signatureInfo))

        let signatures = try TEKSignature.decodeList(try #require(archive.exportSig))
        let expected = try #require(entry["tek_signatures"] as? [[String: Any]])
        #expect(signatures.count == expected.count)
        for (signature, want) in zip(signatures, expected) {
            #expect(signature.signatureInfo == Self.signatureInfo(want["signature_info"] as? [String: Any] ?? [:]))
            #expect(Int(signature.batchNum) == want["batch_num"] as? Int)
            #expect(Int(signature.batchSize) == want["batch_size"] as? Int)
            #expect(signature.signature.count == want["signature_len"] as? Int)
            #expect(Hex.encode(signature.signature) == want["signature_hex"] as? String)
        }
    }

    @Test(arguments: cases)
    func verdictIsTheReadmes(_ fixture: Case) throws {
        let archive = try TestExport(zip: try Self.bytes(fixture.file))
        let header = try archive.header()
        switch fixture.verdict {
        case .verifies(let pem):
            let verified = try Self.keyring(pem: pem, header: header).verify(archive)
            #expect(verified.verifiedBy == [header.signatureInfos[0].keyID])
            #expect(verified.header == header)
            try Self.expectKeysMatchManifest(verified, file: fixture.file)
        case .rejected(let reason):
            var keyring = VerificationKeyring()
            for (i, path) in Self.p256KeysInFolder.enumerated() {
                try keyring.add(pem: try Self.pem(path), for: VerificationKeyID(id: "folder-\(i)", version: "v1"))
            }
            #expect(throws: reason) { try keyring.verify(archive) }
        }
    }

    /// A wrong key under the right name: the signature check itself must fail.
    @Test(arguments: cases)
    func everyOtherKeyInTheFolderFailsToVerify(_ fixture: Case) throws {
        let archive = try TestExport(zip: try Self.bytes(fixture.file))
        let header = try archive.header()
        let id = header.signatureInfos[0].keyID
        let expectedPEM: String? = if case .verifies(let pem) = fixture.verdict { pem } else { nil }
        for path in Self.p256KeysInFolder where path != expectedPEM {
            var keyring = VerificationKeyring()
            try keyring.add(pem: try Self.pem(path), for: id)
            let error = try #require(throws: ExportError.self) { try keyring.verify(archive) }
            // The Dutch files fail earlier, on the signature's encoding.
            if case .rawSignature = error { continue }
            #expect(error == .signatureInvalid(id), "\(fixture.file) with \(path)")
        }
    }

    /// Rejected files still decode: re-signed by a test key (same key id), their keys are the manifest's.
    /// This is the only way to read their keys, which is the point of `VerifiedExportFile`.
    @Test(arguments: cases.filter { if case .rejected = $0.verdict { true } else { false } })
    func rejectedFilesDecodeOnceResigned(_ fixture: Case) throws {
        let original = try TestExport(zip: try Self.bytes(fixture.file))
        let header = try original.header()
        let signer = ExportTestSigner()
        let signature = signer.sign(original.exportBin)
        let resigned = TestExport(
            exportBin: original.exportBin,
            exportSig: ExportTestFile.exportSig(header.signatureInfos.map { ($0, signature) }))
        let verified = try signer.keyring(for: header.signatureInfos[0].keyID).verify(resigned)
        try Self.expectKeysMatchManifest(verified, file: fixture.file)
    }

    @Test func secp256k1KeyIsRefused() throws {
        let pem = try Self.pem("koronavilkku-huawei-secp256k1/public_key_secp256k1_test.pem")
        #expect(throws: VerificationKeyError.wrongCurve("secp256k1")) { try VerificationKey(pem: pem) }
        #expect(VerificationKeyError.wrongCurve("secp256k1").description
            == "public key is on curve secp256k1; GAEN accepts only P-256 (prime256v1)")
    }

    @Test func productionKeyDoesNotVerifyTheDevelopmentFile() throws {
        let archive = try TestExport(zip: try Self.bytes("cwa-app-android/keys.bin.zip"))
        let keyring = try Self.keyring(pem: "cwa-app-android/public_key_de.rki.coronawarnapp-PROD.pem",
                                       header: try archive.header())
        #expect(throws: ExportError.signatureInvalid(VerificationKeyID(id: "262", version: "v1"))) {
            try keyring.verify(archive)
        }
    }

    /// batch 1 of 7: even if it verified, its keys would wait for six more files.
    @Test func dutchFileIsAnIncompleteBatch() throws {
        for file in ["nl-coronamelder-android/export-no-sig.zip", "nl-coronamelder-android/export-incorrect-sig.zip"] {
            let header = try TestExport(zip: try Self.bytes(file)).header()
            let position = try #require(BatchPosition(header: header))
            var collector = BatchCollector<String>()
            guard case .waiting(received: 1, of: 7) = collector.add(file, at: position) else {
                Issue.record("\(file) should leave its batch waiting for 6 more files")
                continue
            }
            #expect(collector.incomplete.map(\.received) == [1])
        }
    }

    @Test func rollingPeriodAbsentMeans144() throws {
        let file = "google-en-internals/sample_diagnosis_key_file.zip"
        let archive = try TestExport(zip: try Self.bytes(file))
        let verified = try Self.keyring(pem: "google-en-internals/public_key_310-v1.pem",
                                        header: try archive.header()).verify(archive)
        var periods = Set<UInt32>()
        try verified.forEachKey { periods.insert($0.tek.rollingPeriod) }
        #expect(periods == [144])
        let entry = try Self.manifestEntry(file)
        #expect(entry["keys_missing_rolling_period_default_144"] as? Int == 140)
    }

    // MARK: Helpers

    static func signatureInfo(_ json: [String: Any]) -> SignatureInfo {
        SignatureInfo(verificationKeyVersion: json["verification_key_version"] as? String ?? "",
                      verificationKeyID: json["verification_key_id"] as? String ?? "",
                      signatureAlgorithm: json["signature_algorithm"] as? String ?? "")
    }

    static func expectKeysMatchManifest(_ verified: VerifiedExportFile, file: String) throws {
        let entry = try manifestEntry(file)
        var first: DiagnosisKey?
        var last: DiagnosisKey?
        var count = 0
        let skipped = try verified.forEachKey { key in
            if first == nil { first = key }
            last = key
            count += 1
        }
        #expect(skipped.total == 0)
        #expect(count == entry["num_keys"] as? Int)
        try expectKey(try #require(first), equals: try #require(entry["first_key"] as? [String: Any]))
        try expectKey(try #require(last), equals: try #require(entry["last_key"] as? [String: Any]))
    }

    static func expectKey(_ key: DiagnosisKey, equals json: [String: Any]) throws {
        #expect(key.tek.keyData.hex == json["key_data"] as? String)
        #expect(key.transmissionRiskLevel == json["transmission_risk_level"] as? Int)
        #expect(Int(key.tek.rollingStart.value) == json["rolling_start_interval_number"] as? Int)
        #expect(Int(key.tek.rollingPeriod) == (json["rolling_period"] as? Int ?? 144))
    }
}
