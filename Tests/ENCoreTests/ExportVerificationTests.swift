import ENCore
import Testing

/// Signature verification on exports signed here with fresh libcrypto keys: every rule of SPEC §3
/// and every reason a file is refused.
@Suite struct ExportVerificationTests {
    let signer = ExportTestSigner()
    let id = VerificationKeyID(id: "999", version: "v1")
    let file = ExportTestFile(keys: (0..<20).map { _ in .random() })

    @Test func signedExportVerifiesThroughTheZip() throws {
        let archive = signer.signedArchive(file)
        let zipped = try TestExport(zip: ExportZipWriter.zip(bin: archive.exportBin, sig: archive.exportSig))
        let verified = try signer.keyring().verify(zipped)
        #expect(verified.verifiedBy == [id])
        #expect(verified.header.keyRecordCount == 20)
        #expect(verified.batch.number == 1 && verified.batch.batch.batchSize == 1)
        var count = 0
        #expect(try verified.forEachKey { _ in count += 1 }.total == 0)
        #expect(count == 20)
    }

    @Test func keysLoadFromPEMAndDER() throws {
        var keyring = VerificationKeyring()
        try keyring.add(VerificationKey(subjectPublicKeyInfo: signer.publicKeyDER), for: id)
        #expect(throws: VerificationKeyError.duplicate(id)) { try keyring.add(pem: signer.publicKeyPEM, for: id) }
        #expect(keyring.keyIDs == [id])
        _ = try keyring.verify(signer.signedArchive(file))
        #expect(throws: VerificationKeyError.self) { try VerificationKey(subjectPublicKeyInfo: signer.publicKeyDER + [0]) }
        #expect(throws: VerificationKeyError.self) { try VerificationKey(subjectPublicKeyInfo: [0x30, 0x03, 0x02, 0x01, 0x01]) }
        #expect(throws: VerificationKeyError.self) { try VerificationKey(pem: "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n") }
        #expect(throws: VerificationKeyError.self) { try VerificationKey(pem: "") }
    }

    @Test func keysOffP256AreRefusedAtLoading() throws {
        #expect(throws: VerificationKeyError.wrongCurve("secp256k1")) {
            try VerificationKey(pem: ExportTestSigner(curve: "secp256k1").publicKeyPEM)
        }
        #expect(throws: VerificationKeyError.wrongCurve("secp384r1")) {
            try VerificationKey(pem: ExportTestSigner(curve: "P-384").publicKeyPEM)
        }
        #expect(throws: VerificationKeyError.notEllipticCurve("ED25519")) {
            try VerificationKey(pem: ExportTestSigner(curve: "ED25519").publicKeyPEM)
        }
    }

    @Test func missingExportSigIsRefused() throws {
        let bare = TestExport(exportBin: file.exportBin, exportSig: nil)
        #expect(throws: ExportError.missingSignatureFile) { try signer.keyring().verify(bare) }
        let unsignedZip = try TestExport(zip: ExportZipWriter.zip(bin: file.exportBin, sig: nil))
        #expect(throws: ExportError.missingSignatureFile) { try signer.keyring().verify(unsignedZip) }
    }

    @Test func emptySignatureListIsRefused() throws {
        let archive = TestExport(exportBin: file.exportBin, exportSig: [])
        #expect(throws: ExportError.noSignatures) { try signer.keyring().verify(archive) }
    }

    @Test func signatureCountMustEqualSignatureInfoCount() throws {
        let bin = file.exportBin
        let signature = signer.sign(bin)
        let info = file.signatureInfos[0]
        let two = TestExport(exportBin: bin, exportSig: ExportTestFile.exportSig([(info, signature), (info, signature)]))
        #expect(throws: ExportError.signatureCountMismatch(signatures: 2, signatureInfos: 1)) {
            try signer.keyring().verify(two)
        }
        var noInfos = file
        noInfos.signatureInfos = []
        let noInfoBin = noInfos.exportBin
        let orphan = TestExport(exportBin: noInfoBin,
                                   exportSig: ExportTestFile.exportSig([(info, signer.sign(noInfoBin))]))
        #expect(throws: ExportError.signatureCountMismatch(signatures: 1, signatureInfos: 0)) {
            try signer.keyring().verify(orphan)
        }
    }

    @Test(arguments: [(Int32(0), Int32(1)), (2, 1), (1, 0), (-1, 5), (1, 1_000_001), (1_000_001, 1_000_001)])
    func batchNumbersOutOfRangeAreRefused(_ batch: (Int32, Int32)) throws {
        var bad = file
        (bad.batchNum, bad.batchSize) = batch
        #expect(throws: ExportError.batchOutOfRange(batchNum: batch.0, batchSize: batch.1)) {
            try signer.keyring().verify(signer.signedArchive(bad))
        }
    }

    @Test func largestBatchIsAccepted() throws {
        var big = file
        (big.batchNum, big.batchSize) = (1_000_000, 1_000_000)
        #expect(try signer.keyring().verify(signer.signedArchive(big)).batch.number == 1_000_000)
    }

    @Test func onlyEcdsaWithSHA256IsAccepted() throws {
        var sha512 = file
        sha512.signatureInfos = [SignatureInfo(verificationKeyVersion: "v1", verificationKeyID: "999",
                                               signatureAlgorithm: "1.2.840.10045.4.3.4")]
        #expect(throws: ExportError.unsupportedAlgorithm("1.2.840.10045.4.3.4")) {
            try signer.keyring().verify(signer.signedArchive(sha512))
        }
    }

    @Test func rawSixtyFourByteSignatureIsRefused() throws {
        let bin = file.exportBin
        let raw = ExportTestSigner.rawSignature(fromDER: signer.sign(bin))
        #expect(raw.count == 64)
        let archive = TestExport(exportBin: bin, exportSig: ExportTestFile.exportSig([(file.signatureInfos[0], raw)]))
        #expect(throws: ExportError.rawSignature(id)) { try signer.keyring().verify(archive) }
    }

    @Test func nonCanonicalDERIsRefused() throws {
        let bin = file.exportBin
        let der = signer.sign(bin)
        let info = file.signatureInfos[0]
        func verdict(_ signature: [UInt8]) throws {
            let archive = TestExport(exportBin: bin, exportSig: ExportTestFile.exportSig([(info, signature)]))
            #expect(throws: ExportError.malformedSignature(id, byteCount: signature.count)) {
                try signer.keyring().verify(archive)
            }
        }
        try verdict(der + [0])                       // trailing byte
        try verdict(Array(der.dropLast()))           // truncated
        try verdict([])                              // absent
        // BER long-form length (0x81 len) for the SEQUENCE: valid BER, not DER.
        try verdict([0x30, 0x81, der[1]] + der.dropFirst(2))
        // The same signature with a redundant leading zero on r: BER-tolerant parsers accept it.
        let rLength = Int(der[3])
        let padded = [0x30, der[1] + 1, 0x02, der[3] + 1, 0x00] + der[4..<(4 + rLength)] + der[(4 + rLength)...]
        try verdict(padded)
    }

    @Test func changedKeyDataOrHeaderIsRefused() throws {
        let archive = signer.signedArchive(file)
        let lastKey = file.keys[19].keyData
        let at = try #require((0...(archive.exportBin.count - 16)).first {
            archive.exportBin[$0..<($0 + 16)].elementsEqual(lastKey)
        })
        for offset in [at, at + 15] {
            var bin = archive.exportBin
            bin[offset] ^= 0x01
            #expect(throws: ExportError.signatureInvalid(id)) {
                try signer.keyring().verify(TestExport(exportBin: bin, exportSig: archive.exportSig))
            }
        }
        var header = archive.exportBin
        header[3] ^= 0x20
        #expect(throws: ExportError.badHeader) {
            try signer.keyring().verify(TestExport(exportBin: header, exportSig: archive.exportSig))
        }
    }

    /// The signature covers the 16-byte header too: a signature over the protobuf alone is refused.
    @Test func signatureMustCoverTheHeader() throws {
        let bin = file.exportBin
        let headerless = signer.sign(Array(bin.dropFirst(16)))
        let archive = TestExport(exportBin: bin, exportSig: ExportTestFile.exportSig([(file.signatureInfos[0], headerless)]))
        #expect(throws: ExportError.signatureInvalid(id)) { try signer.keyring().verify(archive) }
    }

    @Test func otherKeysAndUnknownKeyIDsAreRefused() throws {
        let archive = signer.signedArchive(file)
        #expect(throws: ExportError.signatureInvalid(id)) { try ExportTestSigner().keyring().verify(archive) }
        #expect(throws: ExportError.noConfiguredKey([id])) {
            try signer.keyring(for: VerificationKeyID(id: "999", version: "v2")).verify(archive)
        }
        #expect(throws: ExportError.noConfiguredKey([id])) { try VerificationKeyring().verify(archive) }
    }

    /// export.sig is unsigned: it may not name a key that the signed export.bin does not list.
    @Test func signatureByAnUnlistedKeyIsRefused() throws {
        let bin = file.exportBin
        let other = VerificationKeyID(id: "123", version: "v1")
        let info = SignatureInfo(verificationKeyVersion: other.version, verificationKeyID: other.id)
        let archive = TestExport(exportBin: bin, exportSig: ExportTestFile.exportSig([(info, signer.sign(bin))]))
        #expect(throws: ExportError.signatureNotAnnounced(other)) { try signer.keyring(for: other).verify(archive) }
    }

    /// Co-signing: a device that trusts one of two signers verifies with that one and ignores the other;
    /// a bad signature by a trusted key is never outvoted by a good one.
    @Test func coSignedExports() throws {
        let second = ExportTestSigner()
        let secondID = VerificationKeyID(id: "999", version: "v2")
        var cosigned = file
        cosigned.signatureInfos.append(SignatureInfo(verificationKeyVersion: "v2", verificationKeyID: "999"))
        let bin = cosigned.exportBin
        let sig = ExportTestFile.exportSig([(cosigned.signatureInfos[0], signer.sign(bin)),
                                            (cosigned.signatureInfos[1], second.sign(bin))])
        let archive = TestExport(exportBin: bin, exportSig: sig)

        #expect(try signer.keyring().verify(archive).verifiedBy == [id])
        #expect(try second.keyring(for: secondID).verify(archive).verifiedBy == [secondID])
        var both = signer.keyring()
        try both.add(second.verificationKey, for: secondID)
        #expect(try both.verify(archive).verifiedBy == [id, secondID])

        var wrongSecond = signer.keyring()
        try wrongSecond.add(ExportTestSigner().verificationKey, for: secondID)
        #expect(throws: ExportError.signatureInvalid(secondID)) { try wrongSecond.verify(archive) }
    }

    @Test func headerIsReadableBeforeVerification() throws {
        let archive = signer.signedArchive(file)
        let header = try archive.header()
        #expect(header.region == "XX" && header.keyRecordCount == 20)
        #expect(header.signatureInfos.map(\.keyID) == [id])
    }
}
