import Agent
import ENCore
import KeyDownload
import SystemIO

/// `enbeacon export decode` and `enbeacon export verify`: an export file taken apart for a person or a
/// script, and its signature checked as a phone would. Both stream the file through `ExportFile`, so a
/// 2-million-key export is handled in a few hundred KiB.
enum ExportCommand {
    static let help = """
        usage: enbeacon export decode FILE [--json]
               enbeacon export verify FILE --key PEM [--key PEM]... [--key-id ID --key-version V] [--json]

        FILE is an export zip (export.bin + export.sig) or a bare export.bin. It is read 64 KiB at a
        time, so its size does not matter.

        decode   prints the header (timestamps also as ISO-8601 UTC), the signature infos, the
                 signatures in export.sig, every valid key and how many invalid records were skipped,
                 by reason. Nothing is verified: use verify for that.
                 Text: one "name: value" line per field, then one line per key record:
                   key|revised HEX rsin N (ISO) period P trl T report TYPE onset D|-
                 --json: one document with file, format, header, signatureInfos, signatures, keys,
                 revisedKeys and skipped.
        verify   exit 0 when a signature by one of the --key public keys (PEM, ECDSA P-256) verifies
                 over export.bin and the file meets the GAEN rules (batch number within its size, one
                 signature per signature info, DER signatures); exit 1 with the reason on stderr.
                 A PEM file names no key id. By default each --key is trusted under whatever key id
                 and version (e.g. 262-v1) the file's signatures name. With --key-id ID and
                 --key-version V the keys are trusted under that id only, as a phone configured for one
                 server is: a file signed under another id is refused.
                 --json: one document with file, verified, verifiedBy, key and the header.
        """

    /// Throws a usage error (exit 2); returns a failure (exit 1) whose message names the subcommand.
    static func run(_ arguments: inout Arguments, out: FileOutput) throws(UsageError) -> Result<Void, CommandFailure> {
        let command = "export"
        guard let which = arguments.positional() else { throw UsageError(command, "missing decode or verify") }
        switch which {
        case "decode":
            let json = arguments.flag("--json")
            guard let path = arguments.positional() else { throw UsageError(command, "decode: missing FILE") }
            try arguments.finish()
            return Result { () throws(CommandFailure) in try decode(path, json: json, out: out) }
                .mapError { CommandFailure("enbeacon export decode: \($0)") }
        case "verify":
            // Options first: their values must not be taken for FILE.
            let keyPaths = try arguments.options("--key")
            let onlyID = try keyID(&arguments, command: command)
            let json = arguments.flag("--json")
            guard let path = arguments.positional() else { throw UsageError(command, "verify: missing FILE") }
            try arguments.finish()
            guard !keyPaths.isEmpty else {
                throw UsageError(command, "verify: missing --key PEM (a public key to verify with)")
            }
            return Result { () throws(CommandFailure) in
                try verify(path, keys: TrustedKeys.load(paths: keyPaths, onlyID: onlyID), json: json, out: out)
            }.mapError { CommandFailure("enbeacon export verify: \($0)") }
        default:
            throw UsageError(command, "unknown subcommand '\(which)' (decode, verify)")
        }
    }

    /// `--key-id ID --key-version V`, both or neither.
    static func keyID(_ arguments: inout Arguments, command: String) throws(UsageError) -> VerificationKeyID? {
        let id = try arguments.option("--key-id"), version = try arguments.option("--key-version")
        switch (id, version) {
        case (nil, nil): return nil
        case (let id?, let version?):
            guard !id.isEmpty, !version.isEmpty else {
                throw UsageError(command, "--key-id and --key-version must not be empty")
            }
            return VerificationKeyID(id: id, version: version)
        case (nil, _): throw UsageError(command, "--key-version needs --key-id")
        case (_, nil): throw UsageError(command, "--key-id needs --key-version")
        }
    }

    static func open(_ path: String) throws(CommandFailure) -> ExportFile {
        let source: ExportFileSource
        do throws(TextFileError) { source = try ExportFileSource(path: path) } catch { throw CommandFailure(error.brief) }
        do throws(ExportFileError) { return try ExportFile(source: source) } catch {
            throw CommandFailure("\(path): \(error)")
        }
    }

    // MARK: decode

    static func decode(_ path: String, json: Bool, out: FileOutput) throws(CommandFailure) {
        let file = try open(path)
        // First pass: the header and a check of every record, so that nothing is printed for a file that
        // turns out to be corrupt halfway.
        let (header, skipped): (ExportHeader, SkippedKeys)
        do { (header, skipped) = try file.forEachUnverifiedKey { _ in } } catch { throw CommandFailure("\(path): \(error)") }
        let signatures: Result<[TEKSignature], ExportError>? = file.exportSig.map { sig in
            Result { () throws(ExportError) in try TEKSignature.decodeList(sig) }
        }
        if json {
            try decodeJSON(path, file, header, signatures, skipped, out: out)
        } else {
            try decodeText(path, file, header, signatures, skipped, out: out)
        }
    }

    private static func formatText(_ file: ExportFile) -> String {
        guard let entry = file.exportBinEntry else { return "bare export.bin" }
        let bin = entry.method == .deflated
            ? "export.bin \(entry.uncompressedSize) bytes deflated to \(entry.compressedSize)"
            : "export.bin \(entry.uncompressedSize) bytes stored"
        return "zip (\(bin), " + (file.exportSig.map { "export.sig \($0.count) bytes" } ?? "no export.sig") + ")"
    }

    private static func decodeText(
        _ path: String, _ file: ExportFile, _ header: ExportHeader, _ signatures: Result<[TEKSignature], ExportError>?,
        _ skipped: SkippedKeys, out: FileOutput
    ) throws(CommandFailure) {
        out.write("file: \(path)\n")
        out.write("format: \(formatText(file))\n")
        out.write("start: \(KeyPresentation.timestamp(header.startTimestamp))\n")
        out.write("end: \(KeyPresentation.timestamp(header.endTimestamp))\n")
        out.write("region: \(header.region)\n")
        out.write("batch: \(header.batchNum) of \(header.batchSize)\n")
        for info in header.signatureInfos {
            out.write("signature info: \(info.keyID) \(info.signatureAlgorithm)\n")
        }
        switch signatures {
        case nil:
            out.write("signatures: none (no export.sig)\n")
        case .failure(let error):
            out.write("signatures: unreadable: \(error)\n")
        case .success(let list):
            for s in list {
                out.write("signature: \(s.signatureInfo.keyID) \(s.signatureInfo.signatureAlgorithm) batch \(s.batchNum) of "
                          + "\(s.batchSize), \(s.signature.count) bytes \(Hex.encode(s.signature))\n")
            }
        }
        out.write("keys: \(header.keyRecordCount) records, revised keys: \(header.revisedKeyRecordCount) records\n")
        do {
            try file.forEachUnverifiedKey { record in
                out.write("\(record.list == .keys ? "key" : "revised") \(KeyPresentation.text(record.key))\n")
            }
        } catch {
            throw CommandFailure("\(path): \(error)")
        }
        out.write("skipped: \(skipped)\n")
    }

    private static func decodeJSON(
        _ path: String, _ file: ExportFile, _ header: ExportHeader, _ signatures: Result<[TEKSignature], ExportError>?,
        _ skipped: SkippedKeys, out: FileOutput
    ) throws(CommandFailure) {
        var head = JSONObject()
        head.string("file", path)
        head.string("format", file.format == .zip ? "zip" : "exportBin")
        if let entry = file.exportBinEntry {
            var bin = JSONObject()
            bin.string("method", entry.method == .deflated ? "deflated" : "stored")
            bin.integer("bytes", entry.uncompressedSize)
            bin.integer("compressedBytes", entry.compressedSize)
            head.raw("exportBin", bin.text)
        } else {
            head.raw("exportBin", "null")
        }
        head.raw("header", KeyPresentation.headerJSON(header).text)
        head.raw("signatureInfos", JSON.array(header.signatureInfos.map { KeyPresentation.json($0).text }))
        switch signatures {
        case nil:
            head.raw("signatures", "null")
            head.raw("signaturesError", "null")
        case .failure(let error):
            head.raw("signatures", "null")
            head.string("signaturesError", "\(error)")
        case .success(let list):
            head.raw("signatures", JSON.array(list.map { s in
                var o = KeyPresentation.json(s.signatureInfo)
                o.integer("batchNum", s.batchNum)
                o.integer("batchSize", s.batchSize)
                o.string("signature", Hex.encode(s.signature))
                return o.text
            }))
            head.raw("signaturesError", "null")
        }
        head.raw("skipped", KeyPresentation.json(skipped).text)
        // The key arrays are streamed after the rest: drop the closing brace and continue the object.
        var text = head.text
        text.removeLast()
        out.write(text)
        for list in [ExportKeyList.keys, .revisedKeys] {
            out.write(list == .keys ? ",\"keys\":[" : ",\"revisedKeys\":[")
            var first = true
            let count = list == .keys ? header.keyRecordCount : header.revisedKeyRecordCount
            if count > 0 {
                do {
                    try file.forEachUnverifiedKey { record in
                        guard record.list == list else { return }
                        out.write((first ? "" : ",") + KeyPresentation.json(record.key).text)
                        first = false
                    }
                } catch {
                    throw CommandFailure("\(path): \(error)")
                }
            }
            out.write("]")
        }
        out.write("}\n")
    }

    // MARK: verify

    static func verify(_ path: String, keys: TrustedKeys, json: Bool, out: FileOutput) throws(CommandFailure) {
        let file = try open(path)
        let verified: VerifiedExportFile, keyPath: String
        do { (verified, keyPath) = try keys.verify(file) } catch { throw CommandFailure("\(path): \(error)") }
        let h = verified.header
        if json {
            var o = JSONObject()
            o.string("file", path)
            o.bool("verified", true)
            o.raw("verifiedBy", JSON.array(verified.verifiedBy.map { JSONText.quoted($0.description) }))
            o.string("key", keyPath)
            o.raw("header", KeyPresentation.headerJSON(h).text)
            out.write(o.text + "\n")
        } else {
            out.write("verified: \(path) signed by \(verified.verifiedBy.map { $0.description }.joined(separator: ", ")) "
                      + "(--key \(keyPath)); region \(h.region), \(UTCDateTime(unixSeconds: Int64(clamping: h.startTimestamp))) "
                      + "to \(UTCDateTime(unixSeconds: Int64(clamping: h.endTimestamp))), batch \(h.batchNum) of \(h.batchSize), "
                      + "\(h.keyRecordCount) keys, \(h.revisedKeyRecordCount) revised\n")
        }
    }
}
