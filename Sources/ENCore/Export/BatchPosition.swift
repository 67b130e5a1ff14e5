/// Where one export file sits in a multi-file batch: the batch it belongs to and its 1-based number.
///
/// Servers may split one export window into `batch_size` files sharing region and timestamps; a
/// client must hold a batch's keys until every file of it has arrived.
public struct BatchPosition: Hashable, Sendable {
    /// Google's limit on `batch_size`.
    public static let maxBatchSize: Int32 = 1_000_000

    /// What files of one batch have in common.
    public struct BatchID: Hashable, Sendable, CustomStringConvertible {
        public var region: String
        public var startTimestamp: UInt64
        public var endTimestamp: UInt64
        public var batchSize: Int32

        public var description: String { "\(region) \(startTimestamp)-\(endTimestamp) (\(batchSize) files)" }
    }

    public let batch: BatchID
    public let number: Int32

    /// Nil unless `1 ≤ batch_num ≤ batch_size ≤ 1,000,000`.
    public init?(header: ExportHeader) {
        guard header.batchNum >= 1, header.batchNum <= header.batchSize, header.batchSize <= Self.maxBatchSize else {
            return nil
        }
        batch = BatchID(region: header.region, startTimestamp: header.startTimestamp,
                        endTimestamp: header.endTimestamp, batchSize: header.batchSize)
        number = header.batchNum
    }
}
