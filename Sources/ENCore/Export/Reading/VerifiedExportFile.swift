/// An export file whose signature has been checked against a configured P-256 key, and which has not
/// been loaded: its keys are read by a second pass over export.bin, through the same bounded window.
/// Its initializer is internal and `ExportVerification` its only caller, so holding one is proof of
/// verification, and its key iterator is the only way this module hands out keys that count.
///
/// Between the two passes the file could change. The key pass hashes export.bin again and compares with
/// the SHA-256 taken while the signature was checked; on a difference it throws
/// `changedSinceVerification` after the last key — so a caller collects what the iterator delivers and
/// uses it only once the iterator has ended without an error (the matcher's results are tentative anyway
/// until the whole file has been read).
public struct VerifiedExportFile {
    public let header: ExportHeader
    /// Which chunk of which batch this file is; its keys count only once the batch is complete.
    public let batch: BatchPosition
    /// The configured keys whose signatures verified (at least one).
    public let verifiedBy: [VerificationKeyID]
    private let file: ExportFile
    private let exportBinSHA256: [UInt8]

    init(header: ExportHeader, batch: BatchPosition, verifiedBy: [VerificationKeyID], file: ExportFile,
         exportBinSHA256: [UInt8]) {
        self.header = header
        self.batch = batch
        self.verifiedBy = verifiedBy
        self.file = file
        self.exportBinSHA256 = exportBinSHA256
    }

    /// A fresh stream over the keys, from the first.
    public func makeKeyIterator() throws(ExportFileError) -> ExportKeyIterator {
        try ExportKeyIterator(exportBin: try file.openExportBin(), expectedSHA256: exportBinSHA256)
    }

    /// Calls `body` once per valid key (of one list, or of both), in file order, holding one key at a time.
    /// Returns how many records were skipped as invalid. On any error, drop everything `body` was given.
    @discardableResult
    public func forEachKey(
        in list: ExportKeyList? = nil, _ body: (DiagnosisKey) -> Void
    ) throws(ExportFileError) -> SkippedKeys {
        let iterator = try makeKeyIterator()
        while let next = try iterator.next() {
            if list == nil || next.list == list { body(next.key) }
        }
        return iterator.skipped
    }
}

extension BatchCollector where Chunk == VerifiedExportFile {
    public mutating func add(_ file: VerifiedExportFile) -> Progress {
        add(file, at: file.batch)
    }
}
