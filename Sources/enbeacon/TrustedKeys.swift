import ENCore
import SystemIO

/// The `--key PEM` public keys of `export verify` and `match`, and the key ids they are trusted under.
///
/// A PEM file carries no key id. By default a key is trusted under whichever `verification_key_id` and
/// `verification_key_version` the export's signatures name — the command line's user chose the key for
/// this file. With `--key-id` and `--key-version`, every key is trusted under that one id only, as a phone
/// configured for one server is. Each key gets its own keyring, so several `--key`s mean "one of these".
struct TrustedKeys {
    struct Key {
        let path: String
        let key: VerificationKey
    }

    static let maxPEMSize = 64 * 1024

    let keys: [Key]
    /// The only id keys are trusted under, or nil for "whatever the file names".
    let onlyID: VerificationKeyID?

    /// Reads and checks every PEM: unreadable files and keys off P-256 fail here, before any export is read.
    static func load(paths: [String], onlyID: VerificationKeyID?) throws(CommandFailure) -> TrustedKeys {
        var keys: [Key] = []
        for path in paths {
            let pem: String
            do throws(TextFileError) { pem = try ReadOnlyFile(path: path).readText(limit: maxPEMSize) } catch {
                throw CommandFailure("--key \(error.brief)")
            }
            do throws(VerificationKeyError) { keys.append(Key(path: path, key: try VerificationKey(pem: pem))) } catch {
                throw CommandFailure("--key \(path): \(error)")
            }
        }
        return TrustedKeys(keys: keys, onlyID: onlyID)
    }

    /// The key ids `file`'s export.sig names (none when it has no readable export.sig: verification then
    /// reports what is wrong with it).
    private func ids(for file: ExportFile) -> [VerificationKeyID] {
        if let onlyID { return [onlyID] }
        guard let sig = file.exportSig, let signatures = try? TEKSignature.decodeList(sig) else { return [] }
        var seen = Set<VerificationKeyID>()
        return signatures.map { $0.signatureInfo.keyID }.filter { seen.insert($0).inserted }
    }

    /// Verifies `file` with each key in turn; the first that verifies wins. A refusal that no other key
    /// could change (a malformed file, a bad batch) is thrown at once; if every key fails its signature
    /// check, the failure names each key.
    func verify(_ file: ExportFile) throws(CommandFailure) -> (VerifiedExportFile, keyPath: String) {
        let ids = ids(for: file)
        var failures: [(path: String, error: ExportFileError)] = []
        for key in keys {
            var keyring = VerificationKeyring()
            for id in ids { try? keyring.add(key.key, for: id) }
            do {
                return (try file.verify(with: keyring), key.path)
            } catch {
                guard case .export(let reason) = error, reason.dependsOnTheKey else {
                    throw CommandFailure(error.description)
                }
                failures.append((key.path, error))
            }
        }
        if failures.count == 1 { throw CommandFailure(failures[0].error.description) }
        throw CommandFailure("no --key verifies it: "
            + failures.map { "\($0.path): \($0.error)" }.joined(separator: "; "))
    }
}

private extension ExportError {
    /// Whether another key could have given a different verdict.
    var dependsOnTheKey: Bool {
        switch self {
        case .signatureInvalid, .noConfiguredKey: true
        default: false
        }
    }
}
