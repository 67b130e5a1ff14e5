import ENCore

/// The third-party export files (Tests/Fixtures/gaen/exports) through ENCore's export reader on this CPU, each
/// decoded, verified or rejected as its README says, the same table as ENCoreTests' ExportFixtureTests:
/// header fields against fixtures_manifest.json, and for a file that verifies, its key count and first and
/// last key. One check per file.
enum FixtureCheck {
    enum Verdict {
        /// Verifies with the PEM at this path, configured under the key id and version the file names.
        case verifies(pem: String)
        /// Refused with this reason by a keyring holding every P-256 key in the folder.
        case rejected(ExportError)
    }

    static let cases: [(file: String, verdict: Verdict)] = [
        ("google-en-internals/sample_diagnosis_key_file.zip", .verifies(pem: "google-en-internals/public_key_310-v1.pem")),
        ("google-ens-server/testExport-2-records-1-of-1.zip", .verifies(pem: "google-ens-server/public.pem")),
        ("cwa-app-android/keys.bin.zip", .verifies(pem: "cwa-app-android/public_key_de.rki.coronawarnapp-dev.pem")),
        // secp256k1 keys cannot be configured at all, so no configured key signed these.
        ("koronavilkku-huawei-secp256k1/batch_test.zip", .rejected(.noConfiguredKey([VerificationKeyID(id: "244", version: "v1")]))),
        ("koronavilkku-huawei-secp256k1/batch_test_2.zip", .rejected(.noConfiguredKey([VerificationKeyID(id: "244", version: "v1")]))),
        ("koronavilkku-huawei-secp256k1/batch_test_invalid_key.zip",
         .rejected(.noConfiguredKey([VerificationKeyID(id: "244", version: "v1")]))),
        ("nl-coronamelder-android/export-no-sig.zip", .rejected(.rawSignature(VerificationKeyID(id: "204", version: "v1")))),
        ("nl-coronamelder-android/export-incorrect-sig.zip", .rejected(.rawSignature(VerificationKeyID(id: "204", version: "v1")))),
    ]

    static let p256KeysInFolder = [
        "google-en-internals/public_key_310-v1.pem",
        "google-ens-server/public.pem",
        "cwa-app-android/public_key_de.rki.coronawarnapp-dev.pem",
        "cwa-app-android/public_key_de.rki.coronawarnapp-PROD.pem",
    ]

    static func run(fixturesDirectory directory: String) -> Tally {
        var tally = Tally()
        let manifest = BoardFile.text(directory + "/fixtures_manifest.json").flatMap { try? JSONValue.parse($0) }
        guard let entries = manifest?["fixtures"]?.array else {
            tally.check(false, "cannot read \(directory)/fixtures_manifest.json")
            return tally
        }
        for (file, verdict) in cases {
            guard let entry = entries.first(where: { $0["file"]?.string == file }) else {
                tally.check(false, "\(file): not in the manifest")
                continue
            }
            let outcome = check(directory: directory, file: file, verdict: verdict, entry: entry)
            tally.check(outcome == nil, "\(file): \(outcome ?? "")")
        }
        return tally
    }

    /// Nil when the file is read as the README says, else what differed.
    static func check(directory: String, file: String, verdict: Verdict, entry: JSONValue) -> String? {
        guard let source = FileExportSource(path: directory + "/" + file) else { return "cannot open it" }
        do throws(ExportFileError) {
            let export = try ExportFile(source: source)
            let header = try export.header()
            guard header.region == entry["region"]?.string,
                  Int64(header.startTimestamp) == entry["start_timestamp"]?.int64,
                  Int64(header.endTimestamp) == entry["end_timestamp"]?.int64,
                  Int64(header.batchNum) == entry["batch_num"]?.int64,
                  Int64(header.batchSize) == entry["batch_size"]?.int64,
                  Int64(header.keyRecordCount) == entry["num_keys"]?.int64,
                  Int64(header.revisedKeyRecordCount) == entry["num_revised_keys"]?.int64,
                  let keyID = header.signatureInfos.first?.keyID
            else { return "header differs from the manifest" }
            switch verdict {
            case .verifies(let pem):
                let verified = try export.verify(with: try keyring([(pem, keyID)], in: directory))
                var count: Int64 = 0
                var first: DiagnosisKey?
                var last: DiagnosisKey?
                try verified.forEachKey { key in
                    count += 1
                    if first == nil { first = key }
                    last = key
                }
                guard count == (entry["num_keys"]?.int64 ?? -1) + (entry["num_revised_keys"]?.int64 ?? 0) else {
                    return "\(count) keys"
                }
                guard matches(first, entry["first_key"]), matches(last, entry["last_key"]) else {
                    return "first or last key differs from the manifest"
                }
                return nil
            case .rejected(let reason):
                var folder: [(pem: String, id: VerificationKeyID)] = []
                for (i, path) in p256KeysInFolder.enumerated() {
                    folder.append((pem: path, id: VerificationKeyID(id: "folder-\(i)", version: "v1")))
                }
                do throws(ExportFileError) {
                    _ = try export.verify(with: try keyring(folder, in: directory))
                    return "verified, but must be rejected"
                } catch {
                    return error == .export(reason) ? nil : "rejected for another reason: \(error)"
                }
            }
        } catch {
            return "\(error)"
        }
    }

    static func keyring(_ keys: [(pem: String, id: VerificationKeyID)], in directory: String) throws(ExportFileError)
        -> VerificationKeyring
    {
        var keyring = VerificationKeyring()
        for (path, id) in keys {
            guard let pem = BoardFile.text(directory + "/" + path) else { throw .read("cannot read \(path)") }
            do throws(VerificationKeyError) { try keyring.add(pem: pem, for: id) } catch {
                throw .read("\(path): \(error)")
            }
        }
        return keyring
    }

    static func matches(_ key: DiagnosisKey?, _ expected: JSONValue?) -> Bool {
        guard let key, let expected else { return false }
        return key.tek.keyData.hex == expected["key_data"]?.string
            && Int64(key.tek.rollingStart.value) == expected["rolling_start_interval_number"]?.int64
            // Absent in the file (and so in the manifest) means the proto default, 144.
            && Int64(key.tek.rollingPeriod) == (expected["rolling_period"]?.int64 ?? 144)
            && Int64(key.transmissionRiskLevel) == expected["transmission_risk_level"]?.int64
    }
}
