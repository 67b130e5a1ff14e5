import ENCore
import Testing

/// The zip reader on archives made here, each corrupted in one way.
@Suite struct ExportZipTests {
    let bin = ExportTestFile(keys: (0..<50).map { _ in .random() }).exportBin
    let sig: [UInt8] = Array(repeating: 7, count: 80)
    let megabyte = 1 << 20

    @Test func storedAndDeflatedEntriesRoundTrip() throws {
        var writer = ExportZipWriter()
        writer.add("export.bin", bin, method: 8)
        writer.add("export.sig", sig, method: 0)
        writer.add("empty", [], method: 8)
        let zip = try TestZip(writer.bytes)
        #expect(zip.entries.map(\.name) == ["export.bin", "export.sig", "empty"])
        #expect(zip.entries.map(\.method) == [.deflated, .stored, .deflated])
        #expect(try zip.contents(of: "export.bin", maxSize: megabyte) == bin)
        #expect(try zip.contents(of: "export.sig", maxSize: megabyte) == sig)
        #expect(try zip.contents(of: "empty", maxSize: 0) == [])
        #expect(throws: ZipError.missingEntry("nope")) { try zip.contents(of: "nope", maxSize: 1) }
        // The reader tells a zip from a bare export.bin by its first bytes.
        #expect(try ExportFile(source: InMemoryExportSource(writer.bytes)).format == .zip)
        #expect(try ExportFile(source: InMemoryExportSource(bin)).format == .bareExportBin)
    }

    @Test func archiveCommentIsSkippedWhenFindingTheEnd() throws {
        var writer = ExportZipWriter()
        writer.add("export.bin", bin)
        // A comment that itself contains an end-record signature must not fool the search.
        writer.comment = [0x50, 0x4b, 0x05, 0x06] + Array(repeating: 0x20, count: 65_531)
        #expect(try TestZip(writer.bytes).contents(of: "export.bin", maxSize: megabyte) == bin)
    }

    @Test func exportFileTakesTheTwoEntriesAndIgnoresOthers() throws {
        var writer = ExportZipWriter()
        writer.add("content.sig", [1, 2, 3])
        writer.add("export.bin", bin)
        writer.add("export.sig", sig)
        let file = try ExportFile(source: InMemoryExportSource(writer.bytes))
        #expect(file.exportSig == sig)
        #expect(file.exportBinEntry?.uncompressedSize == bin.count)
        #expect(try file.forEachUnverifiedKey { _ in }.header.keyRecordCount == 50)

        let unsigned = try ExportFile(source: InMemoryExportSource(ExportZipWriter.zip(bin: bin, sig: nil)))
        #expect(unsigned.exportSig == nil)
        var noBin = ExportZipWriter()
        noBin.add("export.sig", sig)
        #expect(throws: ExportFileError.export(.zip(.missingEntry("export.bin")))) {
            try ExportFile(source: InMemoryExportSource(noBin.bytes))
        }
    }

    @Test func declaredSizeOverTheCapIsRefusedBeforeInflating() throws {
        var writer = ExportZipWriter()
        writer.add("export.bin", bin, declaredSize: 3_000_000_000)
        let zip = try TestZip(writer.bytes)
        #expect(throws: ZipError.entryTooLarge(name: "export.bin", declared: 3_000_000_000, limit: megabyte)) {
            try zip.contents(of: "export.bin", maxSize: megabyte)
        }
        #expect(throws: ExportFileError.export(.zip(.entryTooLarge(name: "export.bin", declared: 3_000_000_000,
                                                                   limit: ExportFile.defaultMaxExportBinSize)))) {
            try ExportFile(source: InMemoryExportSource(writer.bytes)).header()
        }
    }

    /// 50 MB of zeros deflates to about 50 KB: a ratio no export shows.
    @Test func compressionRatioBombIsRefused() throws {
        let zeros = [UInt8](repeating: 0, count: 50 * megabyte)
        var writer = ExportZipWriter()
        writer.add("export.bin", zeros)
        let zip = try TestZip(writer.bytes)
        let entry = try #require(zip.entry(named: "export.bin"))
        let ratio = entry.uncompressedSize / entry.compressedSize
        #expect(throws: ZipError.compressionRatioTooHigh(name: "export.bin", ratio: ratio, limit: 100)) {
            try zip.contents(of: "export.bin", maxSize: 64 * megabyte)
        }
    }

    /// The same bomb declaring a harmless size: inflation stops one byte past the declaration.
    @Test func bombThatLiesAboutItsSizeIsCaughtWhileInflating() throws {
        let zeros = [UInt8](repeating: 0, count: 50 * megabyte)
        var writer = ExportZipWriter()
        writer.add("export.bin", zeros, declaredSize: 1000)
        let zip = try TestZip(writer.bytes)
        #expect(throws: ZipError.inflatesBeyondDeclaredSize(name: "export.bin", declared: 1000)) {
            try zip.contents(of: "export.bin", maxSize: megabyte)
        }
    }

    @Test func dataShorterThanDeclaredIsRefused() throws {
        var writer = ExportZipWriter()
        writer.add("export.bin", bin, declaredSize: UInt32(bin.count + 10))
        #expect(throws: ZipError.sizeMismatch(name: "export.bin", declared: bin.count + 10, actual: bin.count)) {
            try TestZip(writer.bytes).contents(of: "export.bin", maxSize: megabyte)
        }
        var stored = ExportZipWriter()
        stored.add("export.bin", bin, method: 0, declaredSize: UInt32(bin.count - 1))
        #expect(throws: ZipError.sizeMismatch(name: "export.bin", declared: bin.count - 1, actual: bin.count)) {
            try TestZip(stored.bytes).contents(of: "export.bin", maxSize: megabyte)
        }
    }

    @Test func truncatedArchivesAreRefused() throws {
        let whole = ExportZipWriter.zip(bin: bin, sig: sig)
        for cut in [1, 10, 22, whole.count / 2, whole.count - 4] {
            #expect(throws: ZipError.notAZip) { try TestZip(Array(whole.prefix(cut))) }
        }
        #expect(throws: ZipError.notAZip) { try TestZip([]) }
        #expect(throws: ZipError.notAZip) { try TestZip(bin) }
    }

    @Test func truncatedDeflateStreamIsRefused() throws {
        let deflated = ExportZipWriter.deflate(bin)
        var writer = ExportZipWriter()
        writer.add("export.bin", bin, compressed: Array(deflated.prefix(deflated.count / 2)))
        let error = try #require(throws: ZipError.self) {
            try TestZip(writer.bytes).contents(of: "export.bin", maxSize: megabyte)
        }
        switch error {
        case .sizeMismatch(name: "export.bin", declared: bin.count, actual: _), .corruptDeflateStream: break
        default: Issue.record("unexpected \(error)")
        }
    }

    @Test func garbageDeflateDataIsRefused() throws {
        var writer = ExportZipWriter()
        writer.add("export.bin", bin, compressed: [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF])
        let error = try #require(throws: ZipError.self) {
            try TestZip(writer.bytes).contents(of: "export.bin", maxSize: megabyte)
        }
        guard case .corruptDeflateStream(name: "export.bin", _) = error else {
            Issue.record("unexpected \(error)")
            return
        }
    }

    @Test func crcMismatchIsRefused() throws {
        var writer = ExportZipWriter()
        writer.add("export.bin", bin, declaredCRC: 0x1234_5678)
        let error = try #require(throws: ZipError.self) {
            try TestZip(writer.bytes).contents(of: "export.bin", maxSize: megabyte)
        }
        guard case .crcMismatch(name: "export.bin", expected: 0x1234_5678, actual: _) = error else {
            Issue.record("unexpected \(error)")
            return
        }
        #expect(error.description.hasPrefix("zip entry export.bin fails its CRC-32 check (expected 12345678, got "))
    }

    @Test func encryptedAndUnknownMethodsAreRefused() throws {
        var encrypted = ExportZipWriter()
        encrypted.add("export.bin", bin, flags: 1)
        #expect(throws: ZipError.encrypted(name: "export.bin")) { try TestZip(encrypted.bytes) }
        var aes = ExportZipWriter()
        aes.add("export.bin", bin, method: 99, compressed: [1, 2, 3])
        #expect(throws: ZipError.encrypted(name: "export.bin")) { try TestZip(aes.bytes) }
        var bzip2 = ExportZipWriter()
        bzip2.add("export.bin", bin, method: 12, compressed: [1, 2, 3])
        #expect(throws: ZipError.unsupportedMethod(name: "export.bin", method: 12)) { try TestZip(bzip2.bytes) }
    }

    @Test func zip64AndMultiDiskAreRefused() throws {
        var zip64 = ExportZipWriter()
        zip64.add("export.bin", bin)
        zip64.entryCountOverride = 0xFFFF
        #expect(throws: ZipError.zip64Unsupported) { try TestZip(zip64.bytes) }

        var sizes = ExportZipWriter()
        sizes.add("export.bin", bin)
        sizes.central[0].uncompressedSize = 0xFFFF_FFFF
        #expect(throws: ZipError.zip64Unsupported) { try TestZip(sizes.bytes) }

        var disk = ExportZipWriter()
        disk.add("export.bin", bin)
        disk.central[0].diskStart = 1
        #expect(throws: ZipError.multiDiskUnsupported) { try TestZip(disk.bytes) }
    }

    @Test func duplicateNamesAreRefused() throws {
        var writer = ExportZipWriter()
        writer.add("export.bin", bin)
        writer.add("export.bin", [1, 2, 3])
        #expect(throws: ZipError.duplicateName("export.bin")) { try TestZip(writer.bytes) }
    }

    @Test func overlappingEntriesAreRefused() throws {
        var writer = ExportZipWriter()
        writer.add("export.bin", bin, method: 0)
        writer.add("export.sig", sig, method: 0)
        // The first entry claims 10 bytes more than it has: its data now runs into the second's header.
        writer.central[0].compressedSize += 10
        writer.central[0].uncompressedSize += 10
        #expect(throws: ZipError.overlappingEntries("export.bin", "export.sig")) { try TestZip(writer.bytes) }
    }

    @Test func entryPointingAtAnotherEntrysHeaderIsRefused() throws {
        var writer = ExportZipWriter()
        writer.add("export.bin", bin)
        writer.add("export.sig", sig)
        writer.central[1].localOffset = writer.central[0].localOffset
        #expect(throws: ZipError.localHeaderMismatch(name: "export.sig")) { try TestZip(writer.bytes) }
    }

    @Test func outOfRangeOffsetsAreRefused() throws {
        var header = ExportZipWriter()
        header.add("export.bin", bin)
        header.central[0].localOffset = 0x7FFF_0000
        #expect(throws: ZipError.outOfRange("local header of export.bin")) { try TestZip(header.bytes) }

        var data = ExportZipWriter()
        data.add("export.bin", bin)
        data.central[0].compressedSize = 0x7FFF_0000
        #expect(throws: ZipError.outOfRange("data of export.bin")) { try TestZip(data.bytes) }

        // An end record whose central directory would start past the end record itself.
        var bytes = ExportZipWriter.zip(bin: bin, sig: sig)
        let end = bytes.count - 22
        bytes[end + 16] = 0xFF
        bytes[end + 17] = 0xFF
        bytes[end + 18] = 0xFF
        bytes[end + 19] = 0x7F
        #expect(throws: ZipError.outOfRange("central directory")) { try TestZip(bytes) }
    }

    /// Offsets and sizes from 2 GiB up: on a 32-bit board `Int` ends at 2^31 - 1, where converting such a
    /// field, or adding it to an offset, would trap instead of refusing the file. The board build
    /// (Tools/build-board armv7) runs the same inputs on a 32-bit CPU.
    @Test(arguments: [UInt32(0x8000_0000), 0xFFFF_FFF0])
    func offsetsPast2GiBAreRefused(_ field: UInt32) throws {
        var header = ExportZipWriter()
        header.add("export.bin", bin)
        header.central[0].localOffset = field
        #expect(throws: ZipError.outOfRange("local header of export.bin")) { try TestZip(header.bytes) }

        var data = ExportZipWriter()
        data.add("export.bin", bin)
        data.central[0].compressedSize = field
        #expect(throws: ZipError.outOfRange("data of export.bin")) { try TestZip(data.bytes) }

        var declared = ExportZipWriter()
        declared.add("export.bin", bin, declaredSize: field)
        #expect(throws: ExportFileError.export(.zip(.entryTooLarge(name: "export.bin", declared: Int(field),
                                                                    limit: ExportFile.defaultMaxExportBinSize)))) {
            try ExportFile(source: InMemoryExportSource(declared.bytes)).header()
        }

        let zip = ExportZipWriter.zip(bin: bin, sig: sig)
        let end = zip.count - 22
        var offset = zip
        offset.replaceSubrange((end + 16)..<(end + 20), with: withUnsafeBytes(of: field.littleEndian, Array.init))
        #expect(throws: ZipError.outOfRange("central directory")) { try TestZip(offset) }
        // A small offset whose sum with a huge size would overflow a 32-bit Int.
        var size = zip
        size.replaceSubrange((end + 12)..<(end + 16), with: withUnsafeBytes(of: field.littleEndian, Array.init))
        #expect(throws: ZipError.outOfRange("central directory")) { try TestZip(size) }
    }

    @Test func entryCountIsBounded() throws {
        var writer = ExportZipWriter()
        for i in 0..<65 { writer.add("f\(i)", [UInt8(i)]) }
        #expect(throws: ZipError.tooManyEntries(count: 65, limit: 64)) { try TestZip(writer.bytes) }
        #expect(try TestZip(writer.bytes, maxEntries: 65).entries.count == 65)
    }

    @Test func centralDirectoryCountMismatchIsRefused() throws {
        var writer = ExportZipWriter()
        writer.add("export.bin", bin)
        writer.add("export.sig", sig)
        writer.entryCountOverride = 1
        let error = try #require(throws: ZipError.self) { try TestZip(writer.bytes) }
        guard case .corruptCentralDirectory = error else {
            Issue.record("unexpected \(error)")
            return
        }
    }
}
