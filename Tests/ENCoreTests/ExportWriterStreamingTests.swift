import ENCore
import Foundation
import Testing

/// Written exports read back through `ExportFile`, the one bounded reader the agent and the command line
/// use: exact verdicts on good and crafted files, the header pass agreeing with the verifying and the key
/// passes on every fixture, and thousands of mutations either refused or read back unchanged.
@Suite struct ExportWriterStreamingTests {
    static let id = ExportWriterTests.id

    /// What a reader made of a file: its keys (both lists, in order) and skips, or that it refused it.
    enum Outcome: Equatable, CustomStringConvertible {
        case accepted(keys: [DiagnosisKey], skipped: SkippedKeys)
        case rejected(String)

        var description: String {
            switch self {
            case .accepted(let keys, let skipped): "accepted \(keys.count) keys, skipped \(skipped)"
            case .rejected(let reason): "rejected: \(reason)"
            }
        }

        var isAccepted: Bool { if case .accepted = self { true } else { false } }
    }

    static func streaming(_ zip: [UInt8], _ keyring: VerificationKeyring) -> Outcome {
        do {
            let verified = try ExportFile(source: InMemoryExportSource(zip)).verify(with: keyring)
            var keys: [DiagnosisKey] = []
            let skipped = try verified.forEachKey { keys.append($0) }
            return .accepted(keys: keys, skipped: skipped)
        } catch {
            return .rejected("\(error)")
        }
    }

    @Test(arguments: [ZipEntry.Method.deflated, .stored])
    func writtenExportStreamsBack(_ method: ZipEntry.Method) throws {
        let key = try SigningKey.generateP256()
        let keys = ExportWriterTests.sampleKeys(count: 3_000)
        let zip = try ExportWriter.archive(descriptor: ExportWriterTests.descriptor,
                                           signers: [ExportSigner(key: key, keyID: Self.id)], keys: keys,
                                           compression: method)
        let file = try ExportFile(source: InMemoryExportSource(zip))
        #expect(file.format == .zip)
        #expect(file.exportBinEntry?.method == method)
        let header = try file.header()
        #expect(header.keyRecordCount == keys.count && header.region == "XX")
        let verified = try file.verify(with: try ExportWriterTests.keyring(key))
        #expect(verified.header == header)
        #expect(verified.verifiedBy == [Self.id])
        var read: [DiagnosisKey] = []
        #expect(try verified.forEachKey { read.append($0) }.total == 0)
        #expect(read == keys)
        #expect(Self.streaming(zip, try ExportWriterTests.keyring(key)) == .accepted(keys: keys, skipped: SkippedKeys()))
    }

    /// Every shape the test support can build, good and bad, gets its verdict, word for word.
    @Test func craftedFilesGetTheirVerdicts() throws {
        let signer = ExportTestSigner()
        let other = ExportTestSigner()
        var files: [(String, [UInt8])] = []
        var plain = ExportTestFile(keys: (0..<30).map { _ in .random() })
        plain.keys[3].rollingPeriod = 0
        plain.keys[4].keyData = [1, 2, 3]
        plain.keys[5].reportType = 4
        plain.keys[6].daysSinceOnset = -20
        plain.keys[7].rollingPeriod = nil
        plain.keys[8].reversedFieldOrder = true
        plain.keys[9].unknownFields = true
        plain.revisedKeys = [ExportTestKey(keyData: plain.keys[0].keyData, reportType: 5)]
        func signed(_ file: ExportTestFile, by s: ExportTestSigner = signer, sig: [UInt8]? = nil) -> [UInt8] {
            let bin = file.exportBin
            let signature = s.sign(bin)
            return ExportZipWriter.zip(
                bin: bin, sig: sig ?? ExportTestFile.exportSig(file.signatureInfos.map { ($0, signature) },
                                                               batchNum: file.batchNum, batchSize: file.batchSize))
        }
        files.append(("plain", signed(plain)))
        var odd = plain
        odd.keysFirst = true
        odd.unknownFields = true
        files.append(("keys first, unknown fields, legacy SignatureInfo fields", signed(odd)))
        files.append(("wrong key", signed(plain, by: other)))
        files.append(("no export.sig", ExportZipWriter.zip(bin: plain.exportBin, sig: nil)))
        files.append(("empty export.sig", signed(plain, sig: [])))
        let raw = ExportTestSigner.rawSignature(fromDER: signer.sign(plain.exportBin))
        files.append(("raw signature", signed(plain, sig: ExportTestFile.exportSig([(plain.signatureInfos[0], raw)]))))
        let unannounced = SignatureInfo(verificationKeyVersion: "v9", verificationKeyID: "999")
        files.append(("unannounced", signed(plain, sig: ExportTestFile.exportSig([(unannounced, signer.sign(plain.exportBin))]))))
        var twoInfos = plain
        twoInfos.signatureInfos.append(SignatureInfo(verificationKeyVersion: "v2", verificationKeyID: "999"))
        files.append(("count mismatch", signed(twoInfos, sig: ExportTestFile.exportSig([(plain.signatureInfos[0], signer.sign(twoInfos.exportBin))]))))
        var badBatch = plain
        badBatch.batchNum = 3
        badBatch.batchSize = 2
        files.append(("batch 3 of 2", signed(badBatch)))
        var badMagic = signed(plain)
        badMagic[30 + "export.bin".count] ^= 0xFF  // stored? no: deflated; corrupt the zip data instead
        files.append(("corrupt export.bin data", badMagic))
        files.append(("not a zip", Array("EK Export v1    ".utf8)))
        files.append(("empty", []))

        // Key 6's onset of −20 is kept (Google's rule): only three keys are skipped.
        let skips = "skipped 3 (1 key_data not 16 bytes, 1 rolling_period outside 1...144, 1 report_type RECURSIVE)"
        let verdicts: [String: String] = [
            "plain": "accepted 28 keys, \(skips)",
            "keys first, unknown fields, legacy SignatureInfo fields": "accepted 28 keys, \(skips)",
            "wrong key": "rejected: signature by 999-v1 does not verify",
            "no export.sig": "rejected: export.sig is missing: an unsigned export is never used",
            "empty export.sig": "rejected: export.sig holds no signatures",
            "raw signature": "rejected: signature by 999-v1 is 64 raw bytes (r||s), not the DER encoding GAEN requires",
            "unannounced": "rejected: export.sig has a signature by 999-v9, which export.bin does not list",
            "count mismatch": "rejected: export.sig holds 1 signature(s) but export.bin lists 2 signature info(s)",
            "batch 3 of 2": "rejected: batch 3 of 2 is invalid: 1 <= batch_num <= batch_size <= 1,000,000 is required",
            "corrupt export.bin data": "rejected: zip entry export.bin has corrupt deflate data: invalid code lengths set",
            "not a zip": "rejected: export.sig is missing: an unsigned export is never used",
            "empty": "rejected: neither a zip archive nor an export.bin (no \"EK Export v1\" header)",
        ]
        #expect(Set(verdicts.keys) == Set(files.map(\.0)))
        for (name, zip) in files {
            #expect(Self.streaming(zip, signer.keyring()).description == verdicts[name], "\(name)")
        }
        guard case .accepted(let keys, let skipped) = Self.streaming(files[0].1, signer.keyring()) else {
            Issue.record("the plain file should verify")
            return
        }
        #expect(keys.count == 27 + 1 && skipped.total == 3)
    }

    /// Random damage to written zips (stored and deflated): the reader never crashes, and a damaged file is
    /// either refused with a reason or — the damage missed export.bin and export.sig (a timestamp, a comment)
    /// — verified and read back with exactly the original keys.
    @Test(arguments: [ZipEntry.Method.deflated, .stored])
    func mutatedZipsAreRefusedOrReadUnchanged(_ method: ZipEntry.Method) throws {
        let key = try SigningKey.generateP256()
        let keyring = try ExportWriterTests.keyring(key)
        let keys = ExportWriterTests.sampleKeys(count: 60)
        let zip = try ExportWriter.archive(descriptor: ExportWriterTests.descriptor,
                                           signers: [ExportSigner(key: key, keyID: Self.id)], keys: keys, compression: method)
        #expect(Self.streaming(zip, keyring) == .accepted(keys: keys, skipped: SkippedKeys()))
        var g = SplitMix64(seed: method == .stored ? 11 : 12)
        var accepted = 0
        let trials = 1_500
        for trial in 0..<trials {
            var mutated = zip
            switch trial % 3 {
            case 0:  // flip one byte
                mutated[Int(g.next() % UInt64(zip.count))] ^= UInt8(1 + g.next() % 255)
            case 1:  // set a few bytes to edge values
                for _ in 0..<3 { mutated[Int(g.next() % UInt64(zip.count))] = [0, 0xFF, 0x80, 0x7F][Int(g.next() % 4)] }
            default:  // cut it short
                mutated.removeLast(1 + Int(g.next() % UInt64(zip.count)))
            }
            switch Self.streaming(mutated, keyring) {
            case .accepted(let read, let skipped):
                accepted += 1
                #expect(read == keys && skipped.total == 0, "trial \(trial): a verified file reads as signed")
            case .rejected(let reason):
                // One line, even when the damage put a newline into an entry's name.
                #expect(!reason.isEmpty && !reason.contains("\n"), "trial \(trial)")
            }
        }
        print("export reader fuzz (\(method)): \(trials) mutations, \(accepted) still accepted (unchanged keys), "
              + "\(trials - accepted) refused")
    }

    @Test func bareExportBinDecodesButCannotVerify() throws {
        let file = ExportTestFile(keys: (0..<5).map { _ in .random() })
        let export = try ExportFile(source: InMemoryExportSource(file.exportBin))
        #expect(export.format == .bareExportBin && export.exportSig == nil)
        var keys: [UnverifiedKey] = []
        let (header, skipped) = try export.forEachUnverifiedKey { keys.append($0) }
        #expect(header.keyRecordCount == 5 && skipped.total == 0)
        #expect(keys.map(\.key.tek.keyData) == file.keys.map { Bytes16($0.keyData)! })
        #expect(keys.allSatisfy { $0.list == .keys })
        #expect(throws: ExportFileError.export(.missingSignatureFile)) {
            try export.verify(with: ExportTestSigner().keyring())
        }
        #expect(throws: ExportFileError.unrecognized) { try ExportFile(source: InMemoryExportSource(Array("hello, world!!!!!".utf8))) }
        #expect(throws: ExportFileError.export(.badHeader)) {
            try ExportFile(source: InMemoryExportSource(ExportZipWriter.zip(bin: Array("EK Export v2    ".utf8), sig: [])))
                .header()
        }
    }

    /// The file changes between the verifying pass and the reading pass: the keys read are not used.
    @Test func aFileChangedAfterVerificationIsRefused() throws {
        final class SwappableSource: ExportByteSource, @unchecked Sendable {
            var bytes: [UInt8]
            init(_ bytes: [UInt8]) { self.bytes = bytes }
            var byteCount: Int { bytes.count }
            func read(at offset: Int, into buffer: UnsafeMutableRawBufferPointer) throws(ExportFileError) -> Int {
                try InMemoryExportSource(bytes).read(at: offset, into: buffer)
            }
        }
        let key = try SigningKey.generateP256()
        let keys = ExportWriterTests.sampleKeys(count: 10)
        let zip = try ExportWriter.archive(descriptor: ExportWriterTests.descriptor,
                                           signers: [ExportSigner(key: key, keyID: Self.id)], keys: keys,
                                           compression: .stored)
        let source = SwappableSource(zip)
        let verified = try ExportFile(source: source).verify(with: try ExportWriterTests.keyring(key))
        // One key byte changed, and four more so that the CRC-32 the zip directory (already read) holds still
        // matches: CRC-32 protects against accidents only, the SHA-256 of the first pass against this.
        let parts = try TestExport(zip: zip)
        let original = parts.exportBin
        var tampered = original
        tampered[tampered.count - 20] ^= 1  // inside the last key's key_data
        tampered = Self.forgingCRC32(of: tampered, toMatch: original, patchingAt: tampered.count - 28)
        var writer = ExportZipWriter()
        writer.add("export.bin", tampered, method: 0)
        writer.add("export.sig", try #require(parts.exportSig), method: 0)
        source.bytes = writer.bytes
        #expect(throws: ExportFileError.changedSinceVerification) { try verified.forEachKey { _ in } }
    }

    /// A key record longer than the streaming window: valid protobuf, which a reader holding the whole file
    /// could take, refused here with a reason rather than buffered.
    @Test func oversizedRecordIsRefusedNotBuffered() throws {
        let signer = ExportTestSigner()
        var file = ExportTestFile(keys: [.random()])
        var big = ExportProtoWriter()
        big.bytesField(1, Array(repeating: 0xAB, count: 16))
        big.bytesField(99, Array(repeating: 0, count: 70_000))
        let bin = file.exportBin + [0x3A] + Self.varint(big.bytes.count) + big.bytes
        file.keys = []
        // Stored: 70 KB of zeros would deflate past the zip-bomb ratio.
        var writer = ExportZipWriter()
        writer.add("export.bin", bin, method: 0)
        writer.add("export.sig", ExportTestFile.exportSig([(file.signatureInfos[0], signer.sign(bin))]), method: 0)
        let zip = writer.bytes
        let verified = try ExportFile(source: InMemoryExportSource(zip)).verify(with: signer.keyring())
        #expect(verified.header.keyRecordCount == 2)
        let error = try #require(throws: ExportFileError.self) { try verified.forEachKey { _ in } }
        guard case .fieldTooLarge(field: 7, _, _, limit: 65_536) = error else {
            Issue.record("\(error)")
            return
        }
    }

    /// `bytes` with the 32 bits at `offset` chosen so its CRC-32 equals `original`'s. CRC-32 is affine over
    /// GF(2): the effect of each of the 32 bits is measured, then the system is solved by elimination.
    static func forgingCRC32(of bytes: [UInt8], toMatch original: [UInt8], patchingAt offset: Int) -> [UInt8] {
        func crc(_ b: [UInt8]) -> UInt32 { b.withUnsafeBytes { ExportZipWriter.crc32Of($0) } }
        let base = crc(bytes)
        var rows: [(effect: UInt32, bits: UInt32)] = (0..<32).map { k in
            var flipped = bytes
            flipped[offset + k / 8] ^= UInt8(1) << (k % 8)
            return (crc(flipped) ^ base, UInt32(1) << k)
        }
        // Gaussian elimination: afterwards row i alone has pivot bit i among the rows.
        for bit in 0..<32 {
            let pivot = rows.indices.first { $0 >= bit && rows[$0].effect >> bit & 1 == 1 }!
            rows.swapAt(bit, pivot)
            for i in rows.indices where i != bit && rows[i].effect >> bit & 1 == 1 {
                rows[i] = (rows[i].effect ^ rows[bit].effect, rows[i].bits ^ rows[bit].bits)
            }
        }
        let wanted = base ^ crc(original)
        var flips: UInt32 = 0
        for bit in 0..<32 where wanted >> bit & 1 == 1 { flips ^= rows[bit].bits }
        var patched = bytes
        for k in 0..<32 where flips >> k & 1 == 1 { patched[offset + k / 8] ^= UInt8(1) << (k % 8) }
        precondition(crc(patched) == crc(original))
        return patched
    }

    static func varint(_ value: Int) -> [UInt8] {
        var w = ExportProtoWriter()
        w.varint(UInt64(value))
        return w.bytes
    }

    /// Every fixture: the header pass, the verifying pass and the key pass read the same header, and the keys
    /// of a verified file are the keys read without verification.
    @Test(arguments: ExportFixtureTests.cases)
    func fixturesReadAlikeInEveryPass(_ fixture: ExportFixtureTests.Case) throws {
        let bytes = try ExportFixtureTests.bytes(fixture.file)
        let file = try ExportFile(source: InMemoryExportSource(bytes))
        let header = try file.header()
        var unverified: [DiagnosisKey] = []
        let read = try file.forEachUnverifiedKey { unverified.append($0.key) }
        #expect(read.header == header)
        guard case .verifies(let pem) = fixture.verdict else { return }
        let verified = try file.verify(with: try ExportFixtureTests.keyring(pem: pem, header: header))
        #expect(verified.header == header)
        var keys: [DiagnosisKey] = []
        #expect(try verified.forEachKey { keys.append($0) } == read.skipped)
        #expect(keys == unverified && keys.count == header.keyRecordCount)
    }

    /// Verifying and reading a big export costs the reader a few windows, not the file: no read asks for
    /// more than 64 KiB, and export.bin is read exactly twice (the verifying pass and the key pass).
    /// (Peak memory of a whole process is measured in MatchCommandTests, where no other test shares it.)
    @Test func readingGoesThroughBoundedWindows() throws {
        final class CountingSource: ExportByteSource, @unchecked Sendable {
            let inner: InMemoryExportSource
            var largestRead = 0
            var bytesRead = 0
            init(_ bytes: [UInt8]) { inner = InMemoryExportSource(bytes) }
            var byteCount: Int { inner.byteCount }
            func read(at offset: Int, into buffer: UnsafeMutableRawBufferPointer) throws(ExportFileError) -> Int {
                largestRead = max(largestRead, buffer.count)
                let n = try inner.read(at: offset, into: buffer)
                bytesRead += n
                return n
            }
        }
        let key = try SigningKey.generateP256()
        let writer = try ExportWriter(descriptor: ExportWriterTests.descriptor,
                                      signers: [ExportSigner(key: key, keyID: Self.id)], output: InMemoryExportOutput())
        var g = SplitMix64(seed: 5)
        for i in 0..<200_000 {
            let tek = TemporaryExposureKey(keyData: g.keyData(),
                                           rollingStart: ENIntervalNumber(2_740_000 + UInt32(i % 14) * 144))
            try writer.add(DiagnosisKey(tek: tek, transmissionRiskLevel: i % 9))
        }
        let source = CountingSource(try writer.finish().bytes)
        let file = try ExportFile(source: source)
        let compressed = try #require(file.exportBinEntry?.compressedSize)
        let before = ExportProcessMemory.residentBytes()
        let verified = try file.verify(with: try ExportWriterTests.keyring(key))
        var count = 0
        try verified.forEachKey { _ in count += 1 }
        #expect(count == 200_000)
        #expect(source.largestRead <= 64 * 1024 + 22)
        // Directory and export.sig once, export.bin's compressed data twice.
        #expect(source.bytesRead >= 2 * compressed && source.bytesRead < 2 * compressed + 128 * 1024)
        if let before, let after = ExportProcessMemory.residentBytes() {
            print("streaming reader: 200,000 keys (\(source.byteCount) byte zip), reads of at most \(source.largestRead) "
                  + "bytes, \(source.bytesRead) bytes read in all; RSS \((after - before) / 1024) KiB higher after")
        }
    }
}
