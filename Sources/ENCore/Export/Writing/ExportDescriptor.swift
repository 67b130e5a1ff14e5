/// What export.bin says about itself apart from its keys and signatures: the window in which the keys
/// reached the server, the region, and the file's place in its batch.
public struct ExportDescriptor: Hashable, Sendable {
    /// UTC seconds.
    public var startTimestamp: UInt64
    public var endTimestamp: UInt64
    /// "DE", "US", or an MCC such as "222".
    public var region: String
    /// 1-based; servers that do not split a window write 1 of 1.
    public var batchNum: Int32
    public var batchSize: Int32

    public init(startTimestamp: UInt64, endTimestamp: UInt64, region: String, batchNum: Int32 = 1,
                batchSize: Int32 = 1) {
        self.startTimestamp = startTimestamp
        self.endTimestamp = endTimestamp
        self.region = region
        self.batchNum = batchNum
        self.batchSize = batchSize
    }
}
