/// One signature from export.sig (`TEKSignature`), and the list it comes in (`TEKSignatureList`).
///
/// export.sig is not itself signed: its SignatureInfo only says which key to try, and its batch
/// fields are informational (Android ignores them; the Dutch fixtures carry 1/1 against a 1/7 export).
/// What counts is the signed copy of each SignatureInfo and the batch fields inside export.bin.
public struct TEKSignature: Hashable, Sendable {
    /// More signatures than this is not co-signing, it is an attack on the verifier's time.
    public static let maxPerList = 64

    public var signatureInfo: SignatureInfo
    public var batchNum: Int32
    public var batchSize: Int32
    /// Should be an X9.62 DER ECDSA-Sig-Value (70–72 bytes for P-256).
    public var signature: [UInt8]

    public init(signatureInfo: SignatureInfo, batchNum: Int32 = 1, batchSize: Int32 = 1, signature: [UInt8]) {
        self.signatureInfo = signatureInfo
        self.batchNum = batchNum
        self.batchSize = batchSize
        self.signature = signature
    }

    /// Decodes a whole export.sig.
    public static func decodeList(_ exportSig: [UInt8]) throws(ExportError) -> [TEKSignature] {
        let (signatures, count): ([TEKSignature], Int)
        do {
            (signatures, count) = try exportSig.withBytes { (raw) throws(WireFormatError) in
                try decodeList(raw)
            }
        } catch {
            throw .malformed(file: ExportFile.exportSigName, error)
        }
        guard count <= maxPerList else { throw .tooManySignatures(count: count, limit: maxPerList) }
        return signatures
    }

    /// Signatures past the limit are counted, not kept.
    private static func decodeList(_ raw: UnsafeRawBufferPointer) throws(WireFormatError) -> ([TEKSignature], Int) {
        var signatures: [TEKSignature] = []
        var count = 0
        var reader = ProtobufReader(raw, range: 0..<raw.count)
        while !reader.isAtEnd {
            let tag = try reader.readTag()
            guard tag.field == 1 else {
                try reader.skip(tag)
                continue
            }
            try reader.require(.lengthDelimited, tag, in: "TEKSignatureList")
            let signature = try decode(raw, range: try reader.readLengthDelimited())
            count += 1
            if count <= maxPerList { signatures.append(signature) }
        }
        return (signatures, count)
    }

    private static func decode(_ raw: UnsafeRawBufferPointer, range: Range<Int>) throws(WireFormatError) -> TEKSignature {
        var signature = TEKSignature(
            signatureInfo: SignatureInfo(verificationKeyVersion: "", verificationKeyID: "", signatureAlgorithm: ""),
            batchNum: 0, batchSize: 0, signature: [])
        var reader = ProtobufReader(raw, range: range)
        while !reader.isAtEnd {
            let tag = try reader.readTag()
            switch tag.field {
            case 1:
                try reader.require(.lengthDelimited, tag, in: "TEKSignature")
                signature.signatureInfo = try SignatureInfo.decode(raw, range: try reader.readLengthDelimited())
            case 2:
                try reader.require(.varint, tag, in: "TEKSignature")
                signature.batchNum = try reader.readInt32()
            case 3:
                try reader.require(.varint, tag, in: "TEKSignature")
                signature.batchSize = try reader.readInt32()
            case 4:
                try reader.require(.lengthDelimited, tag, in: "TEKSignature")
                signature.signature = reader.bytes(try reader.readLengthDelimited())
            default:
                try reader.skip(tag)
            }
        }
        return signature
    }
}
