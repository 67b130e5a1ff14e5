/// Everything in export.bin except the keys: enough to pick a verification key, check the batch,
/// and show an operator what a file is, decoded without materialising a single key.
///
/// Protobuf lets fields come in any order, so the header cannot stop at the first key: it walks the
/// whole top-level message, but each key record costs only a length read and a jump.
public struct ExportHeader: Hashable, Sendable {
    /// "EK Export v1" padded with four spaces to 16 bytes.
    public static let magic: [UInt8] = Array("EK Export v1    ".utf8)
    /// Phones read at most 10 SignatureInfos; anything far beyond that is not a real export.
    public static let maxSignatureInfos = 64

    /// UTC seconds; the window in which the keys reached the server. 0 when absent.
    public var startTimestamp: UInt64
    public var endTimestamp: UInt64
    public var region: String
    /// 1-based chunk number and chunk count; 0 when absent (which verification rejects).
    public var batchNum: Int32
    public var batchSize: Int32
    public var signatureInfos: [SignatureInfo]
    /// Records in `keys` and `revised_keys`, valid or not: streaming may skip some.
    public var keyRecordCount: Int
    public var revisedKeyRecordCount: Int

    public init(startTimestamp: UInt64 = 0, endTimestamp: UInt64 = 0, region: String = "", batchNum: Int32 = 0,
                batchSize: Int32 = 0, signatureInfos: [SignatureInfo] = [], keyRecordCount: Int = 0,
                revisedKeyRecordCount: Int = 0) {
        self.startTimestamp = startTimestamp
        self.endTimestamp = endTimestamp
        self.region = region
        self.batchNum = batchNum
        self.batchSize = batchSize
        self.signatureInfos = signatureInfos
        self.keyRecordCount = keyRecordCount
        self.revisedKeyRecordCount = revisedKeyRecordCount
    }

    /// Checks the 16-byte magic and decodes the `TemporaryExposureKeyExport` fields that follow it.
    public static func decode(exportBin: UnsafeRawBufferPointer) throws(ExportError) -> ExportHeader {
        try checkMagic(exportBin)
        let (header, signatureInfoCount): (ExportHeader, Int)
        do {
            (header, signatureInfoCount) = try decodeFields(exportBin)
        } catch {
            throw .malformed(file: ExportArchive.exportBinName, error)
        }
        guard signatureInfoCount <= maxSignatureInfos else {
            throw .tooManySignatureInfos(count: signatureInfoCount, limit: maxSignatureInfos)
        }
        return header
    }

    /// The message after the magic. SignatureInfos past the limit are counted but not kept, so a
    /// hostile file cannot make the header grow with it.
    private static func decodeFields(
        _ exportBin: UnsafeRawBufferPointer
    ) throws(WireFormatError) -> (ExportHeader, signatureInfoCount: Int) {
        var header = ExportHeader()
        var signatureInfoCount = 0
        var reader = ProtobufReader(exportBin, range: magic.count..<exportBin.count)
        while !reader.isAtEnd {
            let tag = try reader.readTag()
            switch tag.field {
            case 1:
                try reader.require(.fixed64, tag, in: "TemporaryExposureKeyExport")
                header.startTimestamp = try reader.readFixed64()
            case 2:
                try reader.require(.fixed64, tag, in: "TemporaryExposureKeyExport")
                header.endTimestamp = try reader.readFixed64()
            case 3:
                try reader.require(.lengthDelimited, tag, in: "TemporaryExposureKeyExport")
                header.region = reader.string(try reader.readLengthDelimited())
            case 4:
                try reader.require(.varint, tag, in: "TemporaryExposureKeyExport")
                header.batchNum = try reader.readInt32()
            case 5:
                try reader.require(.varint, tag, in: "TemporaryExposureKeyExport")
                header.batchSize = try reader.readInt32()
            case 6:
                try reader.require(.lengthDelimited, tag, in: "TemporaryExposureKeyExport")
                let info = try SignatureInfo.decode(exportBin, range: try reader.readLengthDelimited())
                signatureInfoCount += 1
                if signatureInfoCount <= maxSignatureInfos { header.signatureInfos.append(info) }
            case 7:
                try reader.require(.lengthDelimited, tag, in: "TemporaryExposureKeyExport")
                _ = try reader.readLengthDelimited()
                header.keyRecordCount += 1
            case 8:
                try reader.require(.lengthDelimited, tag, in: "TemporaryExposureKeyExport")
                _ = try reader.readLengthDelimited()
                header.revisedKeyRecordCount += 1
            default:
                try reader.skip(tag)
            }
        }
        return (header, signatureInfoCount)
    }

    static func checkMagic(_ exportBin: UnsafeRawBufferPointer) throws(ExportError) {
        guard exportBin.count >= magic.count, zip(exportBin.prefix(magic.count), magic).allSatisfy({ $0 == $1 }) else {
            throw .badHeader
        }
    }
}
