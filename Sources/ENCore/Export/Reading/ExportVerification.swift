/// The check of one export file against SPEC §3 and a keyring, as a resumable pass over export.bin: each
/// `advance()` reads one top-level field (a few dozen bytes; 64 KiB are inflated and hashed when the window
/// runs dry), so the agent can verify a 60 MB download in event-loop slices while the radio keeps running.
///
/// Checks, cheapest and most telling first:
/// 1. export.sig exists (before export.bin is read at all: an unsigned file costs nothing).
/// 2. export.bin has the magic and parses, and holds at most 64 SignatureInfos (header only: keys are
///    counted and skipped, never decoded).
/// 3. `1 ≤ batch_num ≤ batch_size ≤ 1,000,000`.
/// 4. export.sig parses, holds at least one signature, and as many as export.bin has SignatureInfos.
/// 5. Every signature: algorithm ecdsa-with-SHA256, strict DER, and its key listed in export.bin.
/// 6. Every signature by a configured key verifies over the whole export.bin, and there is at least one.
///    Signatures by keys the keyring lacks cannot be checked and are ignored (co-signing).
/// (The zip-level checks of export.sig run when the file is opened, those of export.bin during the pass,
/// so a file breaking several rules may be refused for a zip problem first.)
///
/// The pass hashes export.bin for every candidate signature and takes its SHA-256, which the key pass
/// compares against (`ExportFileError.changedSinceVerification`).
public final class ExportVerification {
    private let file: ExportFile
    private let keyring: VerificationKeyring
    private let signatures: Result<[TEKSignature], ExportError>
    private let digests: ExportBinDigests
    private var scanner: ExportBinScanner
    private var isOver = false

    init(file: ExportFile, keyring: VerificationKeyring) throws(ExportFileError) {
        guard let exportSig = file.exportSig else { throw .export(.missingSignatureFile) }
        self.file = file
        self.keyring = keyring
        // Decoded before the pass so that the signatures to hash for are known; its errors are thrown after
        // the header's (rule 4 comes after 2 and 3).
        signatures = Result { () throws(ExportError) in try TEKSignature.decodeList(exportSig) }
        let candidates = (try? signatures.get())?.enumerated().compactMap { index, signature in
            keyring.keys[signature.signatureInfo.keyID].map { (signatureIndex: index, key: $0) }
        } ?? []
        digests = try ExportBinDigests(verifying: candidates)
        scanner = ExportBinScanner(window: ExportBinWindow(reader: try file.openExportBin(), digests: digests),
                                   decodesKeys: false)
    }

    /// Reads the next field of export.bin: nil while there is more, the verified file after the last; throws
    /// the first rule broken. Not to be called again after it returned the file or threw.
    public func advance() throws(ExportFileError) -> VerifiedExportFile? {
        precondition(!isOver, "the verification is over")
        do {
            if try scanner.nextField() != nil { return nil }
            isOver = true
            return try verdict()
        } catch {
            isOver = true
            throw error
        }
    }

    /// Bytes of export.bin read so far, and its declared size: how far the pass is.
    public var progress: (read: Int, of: Int) { (scanner.window.position, scanner.window.reader.expectedSize) }

    private func verdict() throws(ExportFileError) -> VerifiedExportFile {
        try scanner.checkSignatureInfoCount()
        let header = scanner.header
        let sha256 = digests.finishSHA256()
        guard let position = BatchPosition(header: header) else {
            throw .export(.batchOutOfRange(batchNum: header.batchNum, batchSize: header.batchSize))
        }
        let list: [TEKSignature]
        do { list = try signatures.get() } catch { throw .export(error) }
        guard !list.isEmpty else { throw .export(.noSignatures) }
        guard list.count == header.signatureInfos.count else {
            throw .export(.signatureCountMismatch(signatures: list.count, signatureInfos: header.signatureInfos.count))
        }
        let announced = Set(header.signatureInfos.map { $0.keyID })
        for signature in list {
            let info = signature.signatureInfo
            guard info.signatureAlgorithm == SignatureInfo.ecdsaP256SHA256 else {
                throw .export(.unsupportedAlgorithm(info.signatureAlgorithm))
            }
            guard ECDSASignatureEncoding.isStrictDER(signature.signature) else {
                throw .export(signature.signature.count == 64
                    ? .rawSignature(info.keyID)
                    : .malformedSignature(info.keyID, byteCount: signature.signature.count))
            }
            guard announced.contains(info.keyID) else { throw .export(.signatureNotAnnounced(info.keyID)) }
        }
        var verifiedBy: [VerificationKeyID] = []
        for (index, signature) in list.enumerated() where keyring.keys[signature.signatureInfo.keyID] != nil {
            guard digests.verifies(signatureAt: index, signature.signature) else {
                throw .export(.signatureInvalid(signature.signatureInfo.keyID))
            }
            verifiedBy.append(signature.signatureInfo.keyID)
        }
        guard !verifiedBy.isEmpty else { throw .export(.noConfiguredKey(list.map { $0.signatureInfo.keyID })) }
        return VerifiedExportFile(header: header, batch: position, verifiedBy: verifiedBy, file: file,
                                  exportBinSHA256: sha256)
    }
}
