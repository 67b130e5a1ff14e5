/// Why an export file was refused. Every case reads as one line, since `enbeacon export verify`
/// prints it as the verdict.
public enum ExportError: Error, Equatable, Sendable, CustomStringConvertible {
    case zip(ZipError)
    /// export.bin does not start with "EK Export v1    ".
    case badHeader
    /// export.bin or export.sig is not valid protobuf for its schema.
    case malformed(file: String, WireFormatError)
    case tooManySignatureInfos(count: Int, limit: Int)
    case tooManySignatures(count: Int, limit: Int)
    /// No export.sig beside export.bin: an unsigned export is never used.
    case missingSignatureFile
    case noSignatures
    /// Google requires one signature in export.sig per SignatureInfo in export.bin.
    case signatureCountMismatch(signatures: Int, signatureInfos: Int)
    /// `1 ≤ batch_num ≤ batch_size ≤ 1,000,000` does not hold.
    case batchOutOfRange(batchNum: Int32, batchSize: Int32)
    case unsupportedAlgorithm(String)
    /// A 64-byte r‖s signature where X9.62 DER is required.
    case rawSignature(VerificationKeyID)
    case malformedSignature(VerificationKeyID, byteCount: Int)
    /// export.sig names a key that export.bin's signed SignatureInfos do not.
    case signatureNotAnnounced(VerificationKeyID)
    /// None of the signatures is by a key this verifier is configured with.
    case noConfiguredKey([VerificationKeyID])
    case signatureInvalid(VerificationKeyID)

    public var description: String {
        switch self {
        case .zip(let error): "\(error)"
        case .badHeader: "export.bin does not start with the header \"EK Export v1    \""
        case .malformed(let file, let error): "\(file) is malformed: \(error)"
        case .tooManySignatureInfos(let count, let limit):
            "export.bin lists \(count) signature infos, more than the \(limit) allowed"
        case .tooManySignatures(let count, let limit):
            "export.sig holds \(count) signatures, more than the \(limit) allowed"
        case .missingSignatureFile: "export.sig is missing: an unsigned export is never used"
        case .noSignatures: "export.sig holds no signatures"
        case .signatureCountMismatch(let signatures, let infos):
            "export.sig holds \(signatures) signature(s) but export.bin lists \(infos) signature info(s)"
        case .batchOutOfRange(let num, let size):
            "batch \(num) of \(size) is invalid: 1 <= batch_num <= batch_size <= 1,000,000 is required"
        case .unsupportedAlgorithm(let oid):
            "signature algorithm \"\(oid)\" is not ECDSA P-256 with SHA-256 (\(SignatureInfo.ecdsaP256SHA256))"
        case .rawSignature(let key):
            "signature by \(key) is 64 raw bytes (r||s), not the DER encoding GAEN requires"
        case .malformedSignature(let key, let count):
            "signature by \(key) is not a DER ECDSA signature (\(count) bytes)"
        case .signatureNotAnnounced(let key):
            "export.sig has a signature by \(key), which export.bin does not list"
        case .noConfiguredKey(let keys):
            "no configured verification key for \(keys.map { $0.description }.joined(separator: ", "))"
        case .signatureInvalid(let key): "signature by \(key) does not verify"
        }
    }
}
