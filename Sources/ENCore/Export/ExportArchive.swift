/// An export as it arrives: export.bin and (perhaps) export.sig, not yet verified.
///
/// It offers the header, for display and for choosing a key, but no way to read keys: those come
/// only from the `VerifiedExport` that `VerificationKeyring.verify` returns.
public struct ExportArchive: Sendable {
    public static let exportBinName = "export.bin"
    public static let exportSigName = "export.sig"
    /// Germany's 14-day window reached 2.1 million keys (about 63 MB); twice that is still a real file.
    public static let defaultMaxExportBinSize = 128 << 20
    /// Ten signatures take under 2 KiB.
    public static let maxExportSigSize = 64 << 10

    public let exportBin: [UInt8]
    public let exportSig: [UInt8]?

    /// A bare export.bin (and export.sig if the caller has one): the caller decides the format.
    public init(exportBin: [UInt8], exportSig: [UInt8]?) {
        self.exportBin = exportBin
        self.exportSig = exportSig
    }

    /// The two entries of a zip; other entries (the Dutch app's content.sig) are ignored.
    public init(zip bytes: [UInt8], maxExportBinSize: Int = ExportArchive.defaultMaxExportBinSize) throws(ExportError) {
        do {
            let archive = try ZipArchive(bytes)
            exportBin = try archive.contents(of: Self.exportBinName, maxSize: maxExportBinSize)
            if let signatureEntry = archive.entry(named: Self.exportSigName) {
                exportSig = try archive.contents(of: signatureEntry, maxSize: Self.maxExportSigSize)
            } else {
                exportSig = nil
            }
        } catch {
            throw .zip(error)
        }
    }

    /// Header fields of export.bin, unverified: fine to show, not to act on.
    public func header() throws(ExportError) -> ExportHeader {
        try exportBin.withBytes { (raw) throws(ExportError) in try ExportHeader.decode(exportBin: raw) }
    }
}
