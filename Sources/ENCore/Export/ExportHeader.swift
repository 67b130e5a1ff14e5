/// Everything in export.bin except the keys: enough to pick a verification key, check the batch,
/// and show an operator what a file is, decoded without materialising a single key.
///
/// Protobuf lets fields come in any order, so the header is complete only once the whole top-level
/// message has been walked (`ExportBinScanner` fills it in as fields pass); key records cost a length
/// read and a jump.
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
}
