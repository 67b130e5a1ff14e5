/// An export file — a zip with export.bin and export.sig, or a bare export.bin — read from an
/// `ExportByteSource` through bounded buffers: the zip directory, export.sig (at most 64 KiB), and
/// export.bin 64 KiB at a time. Memory does not depend on the number of keys, so a 2-million-key file
/// is verified and matched in a few hundred KiB beyond the process itself. This is the only export reader:
/// the agent's downloads and the command line's files both go through it.
///
/// It offers the header for display; keys that count come only from the `VerifiedExportFile` that
/// verification returns. `forEachUnverifiedKey` exists for decoding a file for a person to read, and says
/// so in its name.
public struct ExportFile {
    public static let exportBinName = "export.bin"
    public static let exportSigName = "export.sig"
    /// Germany's 14-day window reached 2.1 million keys (about 63 MB); twice that is still a real file.
    public static let defaultMaxExportBinSize = 128 << 20
    /// Ten signatures take under 2 KiB.
    public static let maxExportSigSize = 64 << 10

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

    /// Reads the zip directory and export.sig; export.bin is read by each pass below. Other entries (the
    /// Dutch app's content.sig) are ignored. `maxExportBinSize` bounds export.bin's declared (inflated) size.
    public init(source: some ExportByteSource,
                maxExportBinSize: Int = ExportFile.defaultMaxExportBinSize) throws(ExportFileError) {
        self.source = source
        self.maxExportBinSize = maxExportBinSize
        let start = try source.readExactly(at: 0, count: min(source.byteCount, ExportHeader.magic.count))
        if start.starts(with: [0x50, 0x4B]) {  // "PK": a zip, whole or damaged
            format = .zip
            let entries = try ZipDirectory.entries(of: source)
            guard let bin = entries.first(where: { $0.name == Self.exportBinName }) else {
                throw .zip(.missingEntry(Self.exportBinName))
            }
            exportBinEntry = bin
            if let sig = entries.first(where: { $0.name == Self.exportSigName }) {
                exportSig = try ZipEntryReader(entry: sig, in: source, maxSize: Self.maxExportSigSize).readAll()
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
        var scanner = ExportBinScanner(window: ExportBinWindow(reader: try openExportBin(), digests: nil),
                                       decodesKeys: false)
        while try scanner.nextField() != nil {}
        try scanner.checkSignatureInfoCount()
        return scanner.header
    }

    /// Calls `body` with every valid key of the file, unverified, in file order; returns the header and the
    /// records skipped as invalid. For showing a file to a person, or matching with verification knowingly
    /// turned off.
    @discardableResult
    public func forEachUnverifiedKey(
        _ body: (UnverifiedKey) -> Void
    ) throws(ExportFileError) -> (header: ExportHeader, skipped: SkippedKeys) {
        let iterator = try ExportKeyIterator(exportBin: try openExportBin(), expectedSHA256: nil)
        while let (key, list) = try iterator.next() { body(UnverifiedKey(key: key, list: list)) }
        return (iterator.header, iterator.skipped)
    }

    /// Starts verifying the file against `keyring`: a pass over export.bin that the caller drives one field
    /// at a time (`ExportVerification.advance`), so an event loop can interleave other work.
    public func verification(with keyring: VerificationKeyring) throws(ExportFileError) -> ExportVerification {
        try ExportVerification(file: self, keyring: keyring)
    }

    /// Verifies the file in one call (see `ExportVerification` for the checks and their order).
    public func verify(with keyring: VerificationKeyring) throws(ExportFileError) -> VerifiedExportFile {
        let verification = try verification(with: keyring)
        while true {
            if let verified = try verification.advance() { return verified }
        }
    }

    /// A fresh reader of export.bin's bytes, from the first.
    func openExportBin() throws(ExportFileError) -> ZipEntryReader {
        if let exportBinEntry {
            return try ZipEntryReader(entry: exportBinEntry, in: source, maxSize: maxExportBinSize)
        }
        return try ZipEntryReader(wholeFile: source, name: Self.exportBinName, maxSize: maxExportBinSize)
    }
}
