@testable import ENCore

extension WrittenExport {
    /// The zip's export.bin, read by the reader's own zip code (for the bare-export.bin cases).
    func exportBin() throws -> [UInt8] {
        let source = InMemoryExportSource(zip)
        guard let entry = try ZipDirectory.entries(of: source).first(where: { $0.name == ExportFile.exportBinName }) else {
            throw ZipError.missingEntry(ExportFile.exportBinName)
        }
        return try ZipEntryReader(entry: entry, in: source, maxSize: ExportFile.defaultMaxExportBinSize).readAll()
    }
}
