/// Which key signed an export and with which algorithm, as `SignatureInfo` in export.proto.
///
/// Absent strings read as "" (proto2 defaults). Fields 1 and 2 (app_bundle_id, android_package)
/// are reserved legacy fields that old files still carry: they are skipped like any unknown field.
public struct SignatureInfo: Hashable, Sendable {
    /// ecdsa-with-SHA256: the only algorithm a GAEN verifier accepts.
    public static let ecdsaP256SHA256 = "1.2.840.10045.4.3.2"

    public var verificationKeyVersion: String
    public var verificationKeyID: String
    public var signatureAlgorithm: String

    public init(verificationKeyVersion: String, verificationKeyID: String,
                signatureAlgorithm: String = SignatureInfo.ecdsaP256SHA256) {
        self.verificationKeyVersion = verificationKeyVersion
        self.verificationKeyID = verificationKeyID
        self.signatureAlgorithm = signatureAlgorithm
    }

    public var keyID: VerificationKeyID { VerificationKeyID(id: verificationKeyID, version: verificationKeyVersion) }

    static func decode(_ buffer: UnsafeRawBufferPointer, range: Range<Int>) throws(WireFormatError) -> SignatureInfo {
        var info = SignatureInfo(verificationKeyVersion: "", verificationKeyID: "", signatureAlgorithm: "")
        var reader = ProtobufReader(buffer, range: range)
        while !reader.isAtEnd {
            let tag = try reader.readTag()
            switch tag.field {
            case 3:
                try reader.require(.lengthDelimited, tag, in: "SignatureInfo")
                info.verificationKeyVersion = reader.string(try reader.readLengthDelimited())
            case 4:
                try reader.require(.lengthDelimited, tag, in: "SignatureInfo")
                info.verificationKeyID = reader.string(try reader.readLengthDelimited())
            case 5:
                try reader.require(.lengthDelimited, tag, in: "SignatureInfo")
                info.signatureAlgorithm = reader.string(try reader.readLengthDelimited())
            default:
                try reader.skip(tag)
            }
        }
        return info
    }
}
