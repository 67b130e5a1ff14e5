/// An export whose signature has been checked against a configured P-256 key. Its initializer is
/// internal and `VerificationKeyring.verify` is the only caller, so holding one is proof of
/// verification, and the key stream below is the only way this module hands out keys from a file.
public struct VerifiedExport: Sendable {
    public let header: ExportHeader
    /// Which chunk of which batch this file is; its keys count only once the batch is complete.
    public let batch: BatchPosition
    /// The configured keys whose signatures verified (at least one).
    public let verifiedBy: [VerificationKeyID]
    private let exportBin: [UInt8]

    init(header: ExportHeader, batch: BatchPosition, verifiedBy: [VerificationKeyID], exportBin: [UInt8]) {
        self.header = header
        self.batch = batch
        self.verifiedBy = verifiedBy
        self.exportBin = exportBin
    }

    /// A fresh stream over the keys, from the first.
    public func makeKeyIterator() -> ExportKeyIterator {
        ExportKeyIterator(exportBin: exportBin)
    }

    /// Calls `body` once per valid key (of one list, or of both), in file order, holding no more than
    /// one key at a time. Returns how many records were skipped as invalid; throws if the file is
    /// corrupt past the header (keys already delivered came from signed data, but the caller should
    /// drop the file).
    @discardableResult
    public func forEachKey(
        in list: ExportKeyList? = nil, _ body: (DiagnosisKey) -> Void
    ) throws(ExportError) -> SkippedKeys {
        var iterator = makeKeyIterator()
        while let next = try iterator.next() {
            if list == nil || next.list == list { body(next.key) }
        }
        return iterator.skipped
    }
}
