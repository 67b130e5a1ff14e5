import ENCore
import Testing

/// The wire-format decoder and the export schema, on hand-made bytes: hostile lengths and varints,
/// unknown fields of every wire type, unusual field orders, and the per-key validation rules.
@Suite struct ExportProtobufTests {
    let signer = ExportTestSigner()

    /// export.bin from raw protobuf bytes after the magic.
    static func header(ofMessage message: [UInt8]) throws -> ExportHeader {
        try TestExport(exportBin: ExportHeader.magic + message, exportSig: nil).header()
    }

    static func malformed(_ error: WireFormatError) -> ExportError { .malformed(file: "export.bin", error) }

    func keys(of file: ExportTestFile) throws -> (keys: [DiagnosisKey], lists: [ExportKeyList], skipped: SkippedKeys) {
        let verified = try signer.keyring().verify(signer.signedArchive(file))
        let iterator = try verified.makeKeyIterator()
        var keys: [DiagnosisKey] = []
        var lists: [ExportKeyList] = []
        while let next = try iterator.next() {
            keys.append(next.key)
            lists.append(next.list)
        }
        #expect(iterator.isFinished)
        #expect(iterator.recordsRead == file.keys.count + file.revisedKeys.count)
        return (keys, lists, iterator.skipped)
    }

    // MARK: Header and magic

    @Test func magicIsChecked() throws {
        let good = ExportTestFile().exportBin
        #expect(throws: ExportError.badHeader) { try TestExport(exportBin: Array(good.prefix(15)), exportSig: nil).header() }
        var wrong = good
        wrong[15] = UInt8(ascii: "x")
        #expect(throws: ExportError.badHeader) { try TestExport(exportBin: wrong, exportSig: nil).header() }
        #expect(throws: ExportError.badHeader) { try TestExport(exportBin: [], exportSig: nil).header() }
        // Magic alone is an empty export, which parses.
        #expect(try Self.header(ofMessage: []) == ExportHeader())
    }

    @Test func headerFieldsDecode() throws {
        let file = ExportTestFile(
            startTimestamp: 0xFFFF_FFFF_FFFF_FFF0, endTimestamp: 1_600_086_400, region: "222", batchNum: 3, batchSize: 9,
            signatureInfos: [SignatureInfo(verificationKeyVersion: "v2", verificationKeyID: "222"),
                             SignatureInfo(verificationKeyVersion: "v1", verificationKeyID: "222", signatureAlgorithm: "x")],
            keys: [.random(), .random()], revisedKeys: [.random()])
        let header = try TestExport(exportBin: file.exportBin, exportSig: nil).header()
        #expect(header == ExportHeader(
            startTimestamp: 0xFFFF_FFFF_FFFF_FFF0, endTimestamp: 1_600_086_400, region: "222", batchNum: 3, batchSize: 9,
            signatureInfos: file.signatureInfos, keyRecordCount: 2, revisedKeyRecordCount: 1))
    }

    // MARK: Hostile wire data

    @Test func lengthPastTheEndIsRefused() throws {
        // region (field 3) claiming 100 bytes with 2 present.
        #expect(throws: Self.malformed(.lengthOutOfBounds(offset: 17, length: 100, available: 2))) {
            try Self.header(ofMessage: [0x1A, 100, 0x41, 0x42])
        }
        // A key record claiming 2^63 bytes.
        var w = ExportProtoWriter()
        w.tag(7, 2)
        w.varint(1 << 63)
        #expect(throws: Self.malformed(.lengthOutOfBounds(offset: 17, length: 1 << 63, available: 0))) {
            try Self.header(ofMessage: w.bytes)
        }
        // A length valid for the file but not for the SignatureInfo that contains it.
        var nested = ExportProtoWriter()
        nested.bytesField(6, [0x22, 50, 0x41])
        nested.bytesField(3, Array(repeating: 0x41, count: 60))
        #expect(throws: Self.malformed(.lengthOutOfBounds(offset: 19, length: 50, available: 1))) {
            try Self.header(ofMessage: nested.bytes)
        }
    }

    @Test func overlongAndTruncatedVarintsAreRefused() throws {
        // batch_num with eleven continuation bytes.
        #expect(throws: Self.malformed(.varintTooLong(offset: 17))) {
            try Self.header(ofMessage: [0x20] + Array(repeating: 0xFF, count: 10) + [0x01])
        }
        // Ten bytes whose last carries more than the 64th bit.
        #expect(throws: Self.malformed(.varintTooLong(offset: 17))) {
            try Self.header(ofMessage: [0x20] + Array(repeating: 0x80, count: 9) + [0x02])
        }
        // The largest legal ten-byte varint is fine (-1 as int32).
        #expect(try Self.header(ofMessage: [0x20] + Array(repeating: 0xFF, count: 9) + [0x01]).batchNum == -1)
        #expect(throws: Self.malformed(.truncated(offset: 17))) { try Self.header(ofMessage: [0x20, 0x80]) }
        #expect(throws: Self.malformed(.truncated(offset: 16))) { try Self.header(ofMessage: [0x80]) }
        #expect(throws: Self.malformed(.truncated(offset: 17))) { try Self.header(ofMessage: [0x09, 1, 2, 3]) }
        #expect(throws: Self.malformed(.truncated(offset: 17))) { try Self.header(ofMessage: [0x7D, 1, 2, 3]) }
    }

    @Test func invalidTagsAreRefused() throws {
        #expect(throws: Self.malformed(.invalidFieldNumber(offset: 16))) { try Self.header(ofMessage: [0x00, 0x01]) }
        #expect(throws: Self.malformed(.invalidWireType(offset: 16, rawValue: 6))) { try Self.header(ofMessage: [0x0E]) }
        #expect(throws: Self.malformed(.invalidWireType(offset: 16, rawValue: 7))) { try Self.header(ofMessage: [0x0F]) }
        // A tag beyond 32 bits cannot name a valid field.
        #expect(throws: Self.malformed(.invalidFieldNumber(offset: 16))) {
            try Self.header(ofMessage: [0x80, 0x80, 0x80, 0x80, 0x80, 0x01, 0x00])
        }
    }

    @Test func knownFieldWithTheWrongWireTypeIsRefused() throws {
        var w = ExportProtoWriter()
        w.varintField(3, 5)  // region as a varint
        #expect(throws: Self.malformed(.wrongWireType(message: "TemporaryExposureKeyExport", field: 3, found: .varint,
                                                       offset: 16))) {
            try Self.header(ofMessage: w.bytes)
        }
        var f = ExportProtoWriter()
        f.fixed32Field(1, 5)  // start_timestamp must be fixed64
        #expect(throws: Self.malformed(.wrongWireType(message: "TemporaryExposureKeyExport", field: 1, found: .fixed32,
                                                       offset: 16))) {
            try Self.header(ofMessage: f.bytes)
        }
    }

    @Test func groupsAreSkippedButMustBalance() throws {
        var balanced = ExportProtoWriter()
        balanced.unknownFieldsOfEveryWireType()
        balanced.stringField(3, "DE")
        #expect(try Self.header(ofMessage: balanced.bytes).region == "DE")

        var stray = ExportProtoWriter()
        stray.tag(40, 4)
        #expect(throws: Self.malformed(.unmatchedEndGroup(offset: 16))) { try Self.header(ofMessage: stray.bytes) }

        var crossed = ExportProtoWriter()
        crossed.tag(40, 3)
        crossed.tag(41, 4)  // tags of fields 16 and up take two bytes
        #expect(throws: Self.malformed(.unmatchedEndGroup(offset: 18))) { try Self.header(ofMessage: crossed.bytes) }

        var unclosed = ExportProtoWriter()
        unclosed.tag(40, 3)
        unclosed.varintField(1, 1)
        #expect(throws: Self.malformed(.truncated(offset: 20))) { try Self.header(ofMessage: unclosed.bytes) }

        var deep = ExportProtoWriter()
        for _ in 0..<40 { deep.tag(40, 3) }
        // The 33rd start-group tag, two bytes each after the 16-byte magic.
        #expect(throws: Self.malformed(.groupsTooDeep(offset: 16 + 32 * 2))) { try Self.header(ofMessage: deep.bytes) }
    }

    @Test func signatureListIsBoundsCheckedToo() throws {
        #expect(throws: ExportError.malformed(file: "export.sig", .lengthOutOfBounds(offset: 1, length: 9, available: 1))) {
            try TEKSignature.decodeList([0x0A, 9, 0])
        }
        #expect(try TEKSignature.decodeList([]) == [])
        var many = ExportProtoWriter()
        for _ in 0..<65 { many.messageField(1) { $0.bytesField(4, [1]) } }
        #expect(throws: ExportError.tooManySignatures(count: 65, limit: 64)) { try TEKSignature.decodeList(many.bytes) }
    }

    @Test func signatureInfoCountIsBounded() throws {
        var w = ExportProtoWriter()
        for _ in 0..<65 { w.messageField(6) { $0.stringField(4, "1") } }
        #expect(throws: ExportError.tooManySignatureInfos(count: 65, limit: 64)) { try Self.header(ofMessage: w.bytes) }
    }

    // MARK: Tolerance: unknown fields and order

    @Test func unknownFieldsOfEveryWireTypeAreSkippedEverywhere() throws {
        var keys = (0..<3).map { _ in ExportTestKey.random() }
        keys[1].unknownFields = true
        let file = ExportTestFile(keys: keys, unknownFields: true)
        let bin = file.exportBin
        let signature = signer.sign(bin)
        let sig = ExportTestFile.exportSig(file.signatureInfos.map { ($0, signature) }, unknownFields: true)
        let verified = try signer.keyring().verify(TestExport(exportBin: bin, exportSig: sig))
        #expect(verified.header.region == "XX")
        #expect(verified.header.signatureInfos == file.signatureInfos)
        var seen: [Bytes16] = []
        try verified.forEachKey { seen.append($0.tek.keyData) }
        #expect(seen == keys.map { Bytes16($0.keyData)! })
    }

    @Test func fieldsInUnusualOrdersDecodeTheSame() throws {
        var keys = (0..<4).map { _ in ExportTestKey.random() }
        keys[0].reversedFieldOrder = true
        keys[2].reversedFieldOrder = true
        let revised = [ExportTestKey.random()]
        let normal = ExportTestFile(keys: keys, revisedKeys: revised)
        var keysFirst = normal
        keysFirst.keysFirst = true
        let a = try signer.keyring().verify(signer.signedArchive(normal))
        let b = try signer.keyring().verify(signer.signedArchive(keysFirst))
        #expect(a.header == b.header)
        #expect(try self.keys(of: normal).keys == self.keys(of: keysFirst).keys)

        // Revised and ordinary keys interleaved, with header fields between them.
        var w = ExportProtoWriter()
        w.messageField(8, revised[0].write)
        w.stringField(3, "XX")
        w.messageField(7, keys[0].write)
        w.int32Field(5, 1)
        w.messageField(6) { ExportTestFile.writeSignatureInfo(normal.signatureInfos[0], legacyFields: true, &$0) }
        w.messageField(7, keys[1].write)
        w.int32Field(4, 1)
        let bin = ExportHeader.magic + w.bytes
        let signature = signer.sign(bin)
        let verified = try signer.keyring().verify(TestExport(
            exportBin: bin, exportSig: ExportTestFile.exportSig([(normal.signatureInfos[0], signature)])))
        let iterator = try verified.makeKeyIterator()
        var order: [ExportKeyList] = []
        while let next = try iterator.next() { order.append(next.list) }
        #expect(order == [.revisedKeys, .keys, .keys])
        #expect(verified.header.keyRecordCount == 2 && verified.header.revisedKeyRecordCount == 1)
        var onlyRevised = 0
        try verified.forEachKey(in: .revisedKeys) { _ in onlyRevised += 1 }
        #expect(onlyRevised == 1)
    }

    @Test func repeatedScalarFieldsTakeTheLastValue() throws {
        var w = ExportProtoWriter()
        w.stringField(3, "AA")
        w.stringField(3, "BB")
        w.int32Field(4, 2)
        w.int32Field(4, 1)
        let header = try Self.header(ofMessage: w.bytes)
        #expect(header.region == "BB" && header.batchNum == 1)
    }

    // MARK: Keys

    @Test func keyFieldsDecodeWithProto2Defaults() throws {
        let data = Array(0..<16).map(UInt8.init)
        var absent = ExportTestKey(keyData: data, transmissionRiskLevel: nil, rollingStart: 2_650_000, rollingPeriod: nil)
        absent.reportType = nil
        var full = ExportTestKey(keyData: data, transmissionRiskLevel: -1, rollingStart: 0x7FFF_FFFF, rollingPeriod: 1)
        full.reportType = 3
        full.daysSinceOnset = -14
        var unknownType = ExportTestKey.random()
        unknownType.reportType = 9
        unknownType.daysSinceOnset = 14
        let (keys, _, skipped) = try self.keys(of: ExportTestFile(keys: [absent, full, unknownType]))
        #expect(skipped.total == 0)
        #expect(keys[0] == DiagnosisKey(tek: TemporaryExposureKey(keyData: Bytes16(data)!, rollingStart: ENIntervalNumber(2_650_000),
                                                                  rollingPeriod: 144),
                                        transmissionRiskLevel: 0, reportType: .unknown, daysSinceOnsetOfSymptoms: nil))
        #expect(keys[1].transmissionRiskLevel == -1)
        #expect(keys[1].tek.rollingStart.value == 0x7FFF_FFFF && keys[1].tek.rollingPeriod == 1)
        #expect(keys[1].reportType == .selfReport)
        #expect(keys[1].daysSinceOnsetOfSymptoms == -14)
        #expect(keys[2].reportType == .unknown)
        #expect(keys[2].daysSinceOnsetOfSymptoms == 14)
    }

    /// ZigZag, not two's complement: sint32 -1 is the byte 0x01, and 0x01 read as int32 would be +1.
    @Test func daysSinceOnsetIsZigZag() throws {
        var w = ExportProtoWriter()
        w.messageField(7) { k in
            k.bytesField(1, Array(repeating: 1, count: 16))
            k.int32Field(3, 2_650_000)
            k.bytes += [0x30, 0x01]  // field 6, varint 1 → ZigZag -1
        }
        w.messageField(7) { k in
            k.bytesField(1, Array(repeating: 2, count: 16))
            k.int32Field(3, 2_650_000)
            k.bytes += [0x30, 0x1B]  // 27 → -14
        }
        w.messageField(7) { k in
            k.bytesField(1, Array(repeating: 3, count: 16))
            k.int32Field(3, 2_650_000)
            k.bytes += [0x30, 0x1E]  // 30 → +15: beyond the map, kept all the same
        }
        w.messageField(7) { k in
            k.bytesField(1, Array(repeating: 4, count: 16))
            k.int32Field(3, 2_650_000)
            k.bytes += [0x30, 0xA6, 0x1F]  // 4006 → +2003: the EU gateway's "unknown onset", 3 days
        }
        let info = SignatureInfo(verificationKeyVersion: "v1", verificationKeyID: "999")
        w.messageField(6) { ExportTestFile.writeSignatureInfo(info, legacyFields: false, &$0) }
        w.int32Field(4, 1)
        w.int32Field(5, 1)
        let bin = ExportHeader.magic + w.bytes
        let verified = try signer.keyring().verify(TestExport(
            exportBin: bin, exportSig: ExportTestFile.exportSig([(info, signer.sign(bin))])))
        var onsets: [Int?] = []
        let skipped = try verified.forEachKey { onsets.append($0.daysSinceOnsetOfSymptoms) }
        #expect(onsets == [-1, -14, 15, 2003])
        #expect(skipped.total == 0)
    }

    @Test func invalidKeysAreSkippedAndCounted() throws {
        var good = ExportTestKey.random()
        good.reportType = 1
        var short = ExportTestKey.random()
        short.keyData.removeLast()
        var long = ExportTestKey.random()
        long.keyData.append(0)
        var noStart = ExportTestKey.random()
        noStart.rollingStart = nil
        var negativeStart = ExportTestKey.random()
        negativeStart.rollingStart = -5
        var periodZero = ExportTestKey.random()
        periodZero.rollingPeriod = 0
        var period145 = ExportTestKey.random()
        period145.rollingPeriod = 145
        var recursive = ExportTestKey.random()
        recursive.reportType = 4
        var revoked = ExportTestKey.random()
        revoked.reportType = 5
        var revokedRevision = ExportTestKey.random()
        revokedRevision.reportType = 5
        var recursiveRevision = ExportTestKey.random()
        recursiveRevision.reportType = 4
        let file = ExportTestFile(
            keys: [short, good, long, noStart, negativeStart, periodZero, period145, recursive, revoked],
            revisedKeys: [revokedRevision, recursiveRevision])
        let (keys, lists, skipped) = try self.keys(of: file)
        #expect(keys.map(\.tek.keyData) == [Bytes16(good.keyData)!, Bytes16(revokedRevision.keyData)!])
        #expect(keys.map(\.reportType) == [.confirmedTest, .revoked])
        #expect(lists == [.keys, .revisedKeys])
        #expect(skipped[.keyDataNot16Bytes] == 2)
        #expect(skipped[.missingRollingStart] == 2)
        #expect(skipped[.rollingPeriodOutOfRange] == 2)
        #expect(skipped[.recursiveReport] == 2)
        #expect(skipped[.revokedOutsideRevisedKeys] == 1)
        #expect(skipped.total == 9)
        #expect(skipped.description.hasPrefix("9 (2 key_data not 16 bytes, 2 rolling_start_interval_number"))
        #expect(SkippedKeys().description == "none")
    }

    /// A signed file can still be corrupt inside a key: keys before the damage are delivered, then the
    /// stream fails with the offset, and stays finished.
    @Test func corruptKeyRecordEndsTheStreamWithAnError() throws {
        let info = SignatureInfo(verificationKeyVersion: "v1", verificationKeyID: "999")
        var w = ExportProtoWriter()
        w.messageField(6) { ExportTestFile.writeSignatureInfo(info, legacyFields: false, &$0) }
        w.int32Field(4, 1)
        w.int32Field(5, 1)
        w.messageField(7, ExportTestKey.random().write)
        let badKeyOffset = ExportHeader.magic.count + w.bytes.count + 2
        w.bytesField(7, [0x0A, 0x20, 0x01])  // key_data claims 32 bytes, has 1
        w.messageField(7, ExportTestKey.random().write)
        let bin = ExportHeader.magic + w.bytes
        let verified = try signer.keyring().verify(TestExport(
            exportBin: bin, exportSig: ExportTestFile.exportSig([(info, signer.sign(bin))])))
        let iterator = try verified.makeKeyIterator()
        #expect(try iterator.next() != nil)
        #expect(throws: ExportFileError.export(Self.malformed(.lengthOutOfBounds(offset: badKeyOffset + 1, length: 32,
                                                                                 available: 1)))) {
            try iterator.next()
        }
        #expect(iterator.isFinished)
        #expect(try iterator.next() == nil)
    }

    @Test func everyErrorDescriptionIsOneLine() {
        let id = VerificationKeyID(id: "262", version: "v1")
        let errors: [any Error & CustomStringConvertible] = [
            ExportError.badHeader, ExportError.missingSignatureFile, ExportError.noSignatures,
            ExportError.signatureCountMismatch(signatures: 2, signatureInfos: 1),
            ExportError.batchOutOfRange(batchNum: 0, batchSize: 1), ExportError.unsupportedAlgorithm("1.2.3"),
            ExportError.rawSignature(id), ExportError.malformedSignature(id, byteCount: 3),
            ExportError.signatureNotAnnounced(id), ExportError.noConfiguredKey([id, id]), ExportError.signatureInvalid(id),
            ExportError.tooManySignatures(count: 65, limit: 64), ExportError.tooManySignatureInfos(count: 65, limit: 64),
            ExportError.malformed(file: "export.bin", .truncated(offset: 3)),
            ExportError.zip(.compressionRatioTooHigh(name: "export.bin", ratio: 1000, limit: 100)),
            WireFormatError.varintTooLong(offset: 1), WireFormatError.groupsTooDeep(offset: 2),
            ZipError.notAZip, ZipError.inflatesBeyondDeclaredSize(name: "export.bin", declared: 10),
            VerificationKeyError.unreadable("x"), VerificationKeyError.notEllipticCurve("ED25519"),
        ]
        for error in errors {
            #expect(!error.description.isEmpty && !error.description.contains("\n"), "\(error)")
        }
        #expect(ExportError.rawSignature(id).description
            == "signature by 262-v1 is 64 raw bytes (r||s), not the DER encoding GAEN requires")
        #expect(ExportError.noConfiguredKey([id]).description == "no configured verification key for 262-v1")
    }
}
