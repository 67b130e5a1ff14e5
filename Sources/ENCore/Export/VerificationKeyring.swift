/// The public keys this device trusts, each under the (key id, version) a server names it by.
/// The only way to turn an `ExportArchive` into a `VerifiedExport`.
public struct VerificationKeyring: Sendable {
    /// Readable inside the module: the streaming verifier (Export/Streaming) looks keys up too.
    private(set) var keys: [VerificationKeyID: VerificationKey] = [:]

    public init() {}

    public var keyIDs: [VerificationKeyID] {
        keys.keys.sorted { ($0.id, $0.version) < ($1.id, $1.version) }
    }

    public mutating func add(_ key: VerificationKey, for id: VerificationKeyID) throws(VerificationKeyError) {
        guard keys[id] == nil else { throw .duplicate(id) }
        keys[id] = key
    }

    public mutating func add(pem: String, for id: VerificationKeyID) throws(VerificationKeyError) {
        try add(VerificationKey(pem: pem), for: id)
    }

    /// Checks an export against SPEC §3 and this keyring, cheapest and most telling checks first:
    ///
    /// 1. export.sig exists; export.bin has the magic and parses (header only: keys are not touched).
    /// 2. `1 ≤ batch_num ≤ batch_size ≤ 1,000,000`.
    /// 3. export.sig parses, holds at least one signature, and as many as export.bin has SignatureInfos.
    /// 4. Every signature: algorithm ecdsa-with-SHA256, strict DER, and its key listed in export.bin.
    /// 5. Every signature by a configured key verifies over the whole export.bin, and there is at least
    ///    one. Signatures by keys we do not have cannot be checked and are ignored (co-signing).
    public func verify(_ archive: ExportArchive) throws(ExportError) -> VerifiedExport {
        guard let exportSig = archive.exportSig else { throw .missingSignatureFile }
        let header = try archive.header()
        guard let position = BatchPosition(header: header) else {
            throw .batchOutOfRange(batchNum: header.batchNum, batchSize: header.batchSize)
        }
        let signatures = try TEKSignature.decodeList(exportSig)
        guard !signatures.isEmpty else { throw .noSignatures }
        guard signatures.count == header.signatureInfos.count else {
            throw .signatureCountMismatch(signatures: signatures.count, signatureInfos: header.signatureInfos.count)
        }
        let announced = Set(header.signatureInfos.map(\.keyID))
        for signature in signatures {
            let info = signature.signatureInfo
            guard info.signatureAlgorithm == SignatureInfo.ecdsaP256SHA256 else {
                throw .unsupportedAlgorithm(info.signatureAlgorithm)
            }
            guard ECDSASignatureEncoding.isStrictDER(signature.signature) else {
                throw signature.signature.count == 64
                    ? .rawSignature(info.keyID)
                    : .malformedSignature(info.keyID, byteCount: signature.signature.count)
            }
            guard announced.contains(info.keyID) else { throw .signatureNotAnnounced(info.keyID) }
        }
        var verifiedBy: [VerificationKeyID] = []
        for signature in signatures {
            let id = signature.signatureInfo.keyID
            guard let key = keys[id] else { continue }
            let valid = archive.exportBin.withUnsafeBytes { key.verifies(signature: signature.signature, over: $0) }
            guard valid else { throw .signatureInvalid(id) }
            verifiedBy.append(id)
        }
        guard !verifiedBy.isEmpty else { throw .noConfiguredKey(signatures.map(\.signatureInfo.keyID)) }
        return VerifiedExport(header: header, batch: position, verifiedBy: verifiedBy, exportBin: archive.exportBin)
    }
}
