import ENCore
import Foundation
import Testing

/// Written exports read back through `ExportFile`, the bounded streaming reader the command line uses, and
/// that reader held to the in-memory one (`ExportArchive` + `VerificationKeyring`): same verdicts, same
/// keys, on good files, crafted ones, every fixture and thousands of mutations.
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

    static func inMemory(_ zip: [UInt8], _ keyring: VerificationKeyring) -> Outcome {
        do {
            let verified = try keyring.verify(try ExportArchive(zip: zip))
            var keys: [DiagnosisKey] = []
            let skipped = try verified.forEachKey { keys.append($0) }
            return .accepted(keys: keys, skipped: skipped)
        } catch {
            return .rejected("\(error)")
        }
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
        #expect(Self.streaming(zip, try ExportWriterTests.keyring(key)) == Self.inMemory(zip, try ExportWriterTests.keyring(key)))
    }

    /// Every shape the test support can build, good and bad, gets the same verdict and the same reason.
    @Test func craftedFilesGetTheInMemoryVerdict() throws {
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

        for (name, zip) in files {
            let memory = Self.inMemory(zip, signer.keyring())
            let streamed = Self.streaming(zip, signer.keyring())
            #expect(memory.isAccepted == streamed.isAccepted, "\(name): in memory \(memory), streaming \(streamed)")
            if memory.isAccepted || streamed.isAccepted {
                #expect(memory == streamed, "\(name)")
            } else if name != "not a zip" && name != "empty" {
                // Same reason, word for word, where the file is a zip at all.
                #expect(memory == streamed, "\(name)")
            }
        }
        guard case .accepted(let keys, let skipped) = Self.inMemory(files[0].1, signer.keyring()) else {
            Issue.record("the plain file should verify")
            return
        }
        #expect(keys.count == 26 + 1 && skipped.total == 4)
    }

    /// Random damage to written zips (stored and deflated): the streaming reader never crashes, accepts
    /// exactly what the in-memory reader accepts, and then yields the same keys.
    @Test(arguments: [ZipEntry.Method.deflated, .stored])
    func mutatedZipsGetTheInMemoryVerdict(_ method: ZipEntry.Method) throws {
        let key = try SigningKey.generateP256()
        let keyring = try ExportWriterTests.keyring(key)
        let zip = try ExportWriter.archive(descriptor: ExportWriterTests.descriptor,
                                           signers: [ExportSigner(key: key, keyID: Self.id)],
                                           keys: ExportWriterTests.sampleKeys(count: 60), compression: method)
        var g = WriterTestRandom(seed: method == .stored ? 11 : 12)
        var accepted = 0, sameReason = 0
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
            let memory = Self.inMemory(mutated, keyring)
            let streamed = Self.streaming(mutated, keyring)
            #expect(memory.isAccepted == streamed.isAccepted, "trial \(trial): \(memory) / \(streamed)")
            if memory.isAccepted {
                accepted += 1
                #expect(memory == streamed, "trial \(trial)")
            } else if memory == streamed {
                sameReason += 1
            }
        }
        print("streaming reader fuzz (\(method)): \(trials) mutations, \(accepted) still accepted, "
              + "\(sameReason) of \(trials - accepted) rejected with the in-memory reader's exact reason")
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
        let original = try ExportArchive(zip: zip).exportBin
        var tampered = original
        tampered[tampered.count - 20] ^= 1  // inside the last key's key_data
        tampered = Self.forgingCRC32(of: tampered, toMatch: original, patchingAt: tampered.count - 28)
        var writer = ExportZipWriter()
        writer.add("export.bin", tampered, method: 0)
        writer.add("export.sig", try ExportArchive(zip: zip).exportSig!, method: 0)
        source.bytes = writer.bytes
        #expect(throws: ExportFileError.changedSinceVerification) { try verified.forEachKey { _ in } }
    }

    /// A key record longer than the streaming window: valid protobuf the in-memory reader takes, refused
    /// here with a reason rather than buffered.
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
        #expect(Self.inMemory(zip, signer.keyring()).isAccepted)
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

    /// Every fixture: the streaming reader's header, verdict and keys are the in-memory reader's.
    @Test(.enabled(if: SharedData.available, SharedData.skipReason), arguments: ExportFixtureTests.cases)
    func fixturesGetTheInMemoryVerdict(_ fixture: ExportFixtureTests.Case) throws {
        let bytes = try ExportFixtureTests.bytes(fixture.file)
        let header = try ExportArchive(zip: bytes).header()
        #expect(try ExportFile(source: InMemoryExportSource(bytes)).header() == header)
        var keyring = VerificationKeyring()
        switch fixture.verdict {
        case .verifies(let pem):
            keyring = try ExportFixtureTests.keyring(pem: pem, header: header)
        case .rejected:
            for (i, path) in ExportFixtureTests.p256KeysInFolder.enumerated() {
                try keyring.add(pem: try ExportFixtureTests.pem(path), for: VerificationKeyID(id: "folder-\(i)", version: "v1"))
            }
        }
        let memory = Self.inMemory(bytes, keyring)
        #expect(memory == Self.streaming(bytes, keyring))
        if case .verifies = fixture.verdict { #expect(memory.isAccepted) }
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
        var g = WriterTestRandom(seed: 5)
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
