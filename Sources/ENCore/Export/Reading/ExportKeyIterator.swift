/// Streams the valid keys of an export in file order, `keys` and `revised_keys` interleaved as they appear,
/// one key per `next()`, through a 64 KiB window: a 2-million-key file costs the same memory as a 2-key one.
///
/// Resumable: a caller can stop after any key (the agent's matcher takes a slice of keys per event-loop
/// turn) and go on later. Invalid key records are skipped and tallied in `skipped`; a record that does not
/// parse ends the stream with an error, since the rest cannot be trusted. Only a `VerifiedExportFile` hands
/// one out (and `ExportFile.forEachUnverifiedKey` uses one for display): its last `next()` checks that
/// export.bin hashed as it did when its signature was verified, and throws `changedSinceVerification`
/// otherwise — so keys it delivered count only once it has returned nil.
public final class ExportKeyIterator {
    private var scanner: ExportBinScanner
    private let digests: ExportBinDigests?
    private let expectedSHA256: [UInt8]?
    public private(set) var skipped = SkippedKeys()
    /// Key records read so far, valid or not.
    public private(set) var recordsRead = 0
    /// True once the stream has ended, with nil or with an error.
    public private(set) var isFinished = false

    /// `expectedSHA256` nil: a stream for display, nothing to compare against.
    init(exportBin: ZipEntryReader, expectedSHA256: [UInt8]?) throws(ExportFileError) {
        let digests = expectedSHA256 == nil ? nil : try ExportBinDigests()
        self.digests = digests
        self.expectedSHA256 = expectedSHA256
        scanner = ExportBinScanner(window: ExportBinWindow(reader: exportBin, digests: digests), decodesKeys: true)
    }

    /// The header fields read so far: all of them once the stream has ended.
    public var header: ExportHeader { scanner.header }

    /// The next valid key and the list it came from, or nil at the end of the file.
    public func next() throws(ExportFileError) -> (key: DiagnosisKey, list: ExportKeyList)? {
        guard !isFinished else { return nil }
        do throws(ExportFileError) {
            while let field = try scanner.nextField() {
                guard case .keyRecord(let record?, let list) = field else { continue }
                recordsRead += 1
                switch record.validated(in: list) {
                case .success(let key): return (key, list)
                case .failure(let reason): skipped.record(reason)
                }
            }
            isFinished = true
            try scanner.checkSignatureInfoCount()
            if let digests, let expectedSHA256, digests.finishSHA256() != expectedSHA256 {
                throw .changedSinceVerification
            }
            return nil
        } catch {
            isFinished = true
            throw error
        }
    }
}
