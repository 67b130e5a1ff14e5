/// Holds the files of multi-file batches until each batch is complete, then releases it whole.
///
/// Pure bookkeeping: it neither reads nor verifies anything, so it is generic over what it holds
/// (`VerifiedExportFile`s in the agent and `enbeacon match`; anything in tests).
public struct BatchCollector<Chunk> {
    public enum Progress {
        /// Stored; the batch still lacks files.
        case waiting(received: Int, of: Int)
        /// The last missing file arrived: all files of the batch, in batch-number order.
        case complete([Chunk])
        /// A file with this batch number was already held; the first one is kept.
        case duplicate
    }

    private var pending: [BatchPosition.BatchID: [Int32: Chunk]] = [:]

    public init() {}

    public mutating func add(_ chunk: Chunk, at position: BatchPosition) -> Progress {
        var chunks = pending[position.batch, default: [:]]
        guard chunks[position.number] == nil else { return .duplicate }
        chunks[position.number] = chunk
        let size = Int(position.batch.batchSize)
        guard chunks.count == size else {
            pending[position.batch] = chunks
            return .waiting(received: chunks.count, of: size)
        }
        pending[position.batch] = nil
        return .complete(chunks.sorted { $0.key < $1.key }.map { $0.value })
    }

    /// Batches still missing files, with how many they have.
    public var incomplete: [(batch: BatchPosition.BatchID, received: Int)] {
        pending.map { ($0.key, $0.value.count) }.sorted { $0.batch.startTimestamp < $1.batch.startTimestamp }
    }

    /// Forgets a batch that will never complete (its files aged out of the server's window).
    public mutating func discard(_ batch: BatchPosition.BatchID) {
        pending[batch] = nil
    }
}

extension BatchCollector: Sendable where Chunk: Sendable {}
