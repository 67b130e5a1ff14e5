/// An export file — a zip with export.bin and export.sig, or a bare export.bin — read from an
/// `ExportByteSource` through bounded buffers: the zip directory, export.sig (at most 64 KiB), and
/// export.bin 64 KiB at a time. Memory does not depend on the number of keys, so a 2-million-key file
/// is verified and matched in a few hundred KiB beyond the process itself.
///
/// Like `ExportArchive` it offers the header for display; keys that count come only from the
/// `VerifiedExportFile` that `verify(with:)` returns. `forEachUnverifiedKey` exists for decoding a file
/// for a person to read, and says so in its name.
public struct ExportFile {
    public enum Format: Sendable {
        case zip
        case bareExportBin
    }

    public let format: Format
    /// export.bin's zip entry (method, sizes), nil for a bare export.bin.
    public let exportBinEntry: ZipEntry?
    /// export.sig's bytes, nil when the zip has none (and always for a bare export.bin).
    public let exportSig: [UInt8]?
    private let source: any ExportByteSource
    private let maxExportBinSize: Int

    /// Reads the zip directory and export.sig; export.bin is read by each pass below.
    public init(source: some ExportByteSource,
                maxExportBinSize: Int = ExportArchive.defaultMaxExportBinSize) throws(ExportFileError) {
        self.source = source
        self.maxExportBinSize = maxExportBinSize
        let start = try source.readExactly(at: 0, count: min(source.byteCount, ExportHeader.magic.count))
        if start.starts(with: [0x50, 0x4B]) {  // "PK": a zip, whole or damaged
            format = .zip
            let entries = try StreamingZipDirectory.entries(of: source)
            guard let bin = entries.first(where: { $0.name == ExportArchive.exportBinName }) else {
                throw .zip(.missingEntry(ExportArchive.exportBinName))
            }
            exportBinEntry = bin
            if let sig = entries.first(where: { $0.name == ExportArchive.exportSigName }) {
                exportSig = try ZipEntryReader(entry: sig, in: source, maxSize: ExportArchive.maxExportSigSize).readAll()
            } else {
                exportSig = nil
            }
        } else if start.elementsEqual(ExportHeader.magic) {
            format = .bareExportBin
            exportBinEntry = nil
            exportSig = nil
        } else {
            throw .unrecognized
        }
    }

    /// export.bin's header fields, unverified: fine to show, not to act on. One pass that skips key records.
    public func header() throws(ExportFileError) -> ExportHeader {
        try headerPass(digests: nil)
    }

    /// Calls `body` with every valid key of the file, unverified, in file order; returns the header and the
    /// records skipped as invalid. For showing a file to a person, or matching with verification knowingly
    /// turned off.
    @discardableResult
    public func forEachUnverifiedKey(
        _ body: (UnverifiedKey) -> Void
    ) throws(ExportFileError) -> (header: ExportHeader, skipped: SkippedKeys) {
        var scanner = ExportBinScanner(window: ExportBinWindow(reader: try openExportBin(), digests: nil),
                                       decodesKeys: true)
        let skipped = try Self.streamKeys(&scanner) { body(UnverifiedKey(key: $0, list: $1)) }
        try Self.checkSignatureInfoCount(scanner)
        return (scanner.header, skipped)
    }

    /// Checks the file against SPEC §3 and `keyring` as `VerificationKeyring.verify` checks an
    /// `ExportArchive`, in the same order and with the same errors: export.sig present; export.bin's magic
    /// and header; the batch range; export.sig's signatures (count, algorithm, strict DER, announced in
    /// export.bin); and every signature by a configured key verifying over the whole export.bin, at least one.
    /// (A file that breaks several rules at once may be refused for a different one first: the zip-level
    /// checks of export.sig run when the file is opened, those of export.bin during this pass.)
    ///
    /// One pass over export.bin that hashes it for every candidate signature while decoding the header.
    public func verify(with keyring: VerificationKeyring) throws(ExportFileError) -> VerifiedExportFile {
        guard let exportSig else { throw .export(.missingSignatureFile) }
        // Decoded before the pass so that the signatures to check are known; its errors are thrown after
        // the header's, as the in-memory verifier orders them.
        let signatures: Result<[TEKSignature], ExportError> = Result { () throws(ExportError) in
            try TEKSignature.decodeList(exportSig)
        }
        let candidates = (try? signatures.get())?.enumerated().compactMap { index, signature in
            keyring.keys[signature.signatureInfo.keyID].map { (signatureIndex: index, key: $0) }
        } ?? []
        let digests = try ExportBinDigests(verifying: candidates)
        let header = try headerPass(digests: digests)
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
        let announced = Set(header.signatureInfos.map(\.keyID))
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
        guard !verifiedBy.isEmpty else { throw .export(.noConfiguredKey(list.map(\.signatureInfo.keyID))) }
        return VerifiedExportFile(header: header, batch: position, verifiedBy: verifiedBy, file: self,
                                  exportBinSHA256: sha256)
    }

    // MARK: Passes over export.bin

    func openExportBin() throws(ExportFileError) -> ZipEntryReader {
        if let exportBinEntry {
            return try ZipEntryReader(entry: exportBinEntry, in: source, maxSize: maxExportBinSize)
        }
        return try ZipEntryReader(wholeFile: source, name: ExportArchive.exportBinName, maxSize: maxExportBinSize)
    }

    /// Magic, header fields and record counts; key records skipped unread.
    private func headerPass(digests: ExportBinDigests?) throws(ExportFileError) -> ExportHeader {
        var scanner = ExportBinScanner(window: ExportBinWindow(reader: try openExportBin(), digests: digests),
                                       decodesKeys: false)
        try scanner.checkMagic()
        while try scanner.nextKeyRecord() != nil {}
        try Self.checkSignatureInfoCount(scanner)
        return scanner.header
    }

    /// Magic, then every key record validated; valid keys to `body`, invalid ones tallied.
    static func streamKeys(
        _ scanner: inout ExportBinScanner, _ body: (DiagnosisKey, ExportKeyList) -> Void
    ) throws(ExportFileError) -> SkippedKeys {
        try scanner.checkMagic()
        var skipped = SkippedKeys()
        while let (record, list) = try scanner.nextKeyRecord() {
            switch record.validated(in: list) {
            case .success(let key): body(key, list)
            case .failure(let reason): skipped.record(reason)
            }
        }
        return skipped
    }

    private static func checkSignatureInfoCount(_ scanner: ExportBinScanner) throws(ExportFileError) {
        guard scanner.signatureInfoCount <= ExportHeader.maxSignatureInfos else {
            throw .export(.tooManySignatureInfos(count: scanner.signatureInfoCount, limit: ExportHeader.maxSignatureInfos))
        }
    }
}
