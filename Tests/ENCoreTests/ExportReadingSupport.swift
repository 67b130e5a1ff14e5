@testable import ENCore

// The tests' handles on the one export reader (`ExportFile`, `ZipDirectory`, `ZipEntryReader`): exports built
// here in parts are zipped and read back through it, in memory. Errors come back unwrapped to the type that
// says what is wrong (`ZipError` for the archive, `ExportError` for the export), as the verdict a user reads.

/// export.bin and export.sig as a test builds them; read through a zip of the two (no export.sig entry
/// when `exportSig` is nil), or through the zip they came from, as long as neither was changed.
struct TestExport {
    var exportBin: [UInt8] { didSet { original = nil } }
    var exportSig: [UInt8]? { didSet { original = nil } }
    /// The zip `init(zip:)` read, byte for byte (a fixture is verified as published, not re-zipped).
    private var original: [UInt8]?

    init(exportBin: [UInt8], exportSig: [UInt8]?) {
        self.exportBin = exportBin
        self.exportSig = exportSig
    }

    /// The two entries of a zip, read by the reader's own zip code.
    init(zip bytes: [UInt8]) throws {
        let zip = try TestZip(bytes)
        exportBin = try zip.contents(of: ExportFile.exportBinName, maxSize: ExportFile.defaultMaxExportBinSize)
        exportSig = try zip.entry(named: ExportFile.exportSigName).map {
            try zip.contents(of: $0, maxSize: ExportFile.maxExportSigSize)
        }
        original = bytes
    }

    var zip: [UInt8] { original ?? ExportZipWriter.zip(bin: exportBin, sig: exportSig) }

    func file() throws -> ExportFile {
        try unwrapped { () throws(ExportFileError) in try ExportFile(source: InMemoryExportSource(zip)) }
    }

    /// export.bin's header, unverified.
    func header() throws -> ExportHeader {
        let file = try file()
        return try unwrapped { () throws(ExportFileError) in try file.header() }
    }
}

extension VerificationKeyring {
    /// `export` verified with this keyring.
    func verify(_ export: TestExport) throws -> VerifiedExportFile {
        let file = try export.file()
        return try unwrapped { () throws(ExportFileError) in try file.verify(with: self) }
    }
}

/// A zip archive's entries, found and read by the reader's zip code.
struct TestZip {
    let bytes: [UInt8]
    let entries: [ZipEntry]

    init(_ bytes: [UInt8], maxEntries: Int = ZipDirectory.defaultMaxEntries) throws {
        self.bytes = bytes
        entries = try unwrapped { () throws(ExportFileError) in
            try ZipDirectory.entries(of: InMemoryExportSource(bytes), maxEntries: maxEntries)
        }
    }

    func entry(named name: String) -> ZipEntry? { entries.first { $0.name == name } }

    func contents(of name: String, maxSize: Int,
                  maxCompressionRatio: Int = ZipEntryReader.defaultMaxCompressionRatio) throws -> [UInt8] {
        guard let entry = entry(named: name) else { throw ZipError.missingEntry(name) }
        return try contents(of: entry, maxSize: maxSize, maxCompressionRatio: maxCompressionRatio)
    }

    func contents(of entry: ZipEntry, maxSize: Int,
                  maxCompressionRatio: Int = ZipEntryReader.defaultMaxCompressionRatio) throws -> [UInt8] {
        try unwrapped { () throws(ExportFileError) in
            try ZipEntryReader(entry: entry, in: InMemoryExportSource(bytes), maxSize: maxSize,
                               maxCompressionRatio: maxCompressionRatio).readAll()
        }
    }
}

/// Runs `body`, throwing a `ZipError` or `ExportError` as itself rather than wrapped in `ExportFileError`.
func unwrapped<T>(_ body: () throws(ExportFileError) -> T) throws -> T {
    do {
        return try body()
    } catch .export(.zip(let error)) {
        throw error
    } catch .export(let error) {
        throw error
    }
}
