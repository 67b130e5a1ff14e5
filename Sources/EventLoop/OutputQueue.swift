/// Bytes waiting for a slow or stalled reader (a 115200-baud line moves about 11 KB a second), bounded
/// so that the agent's memory cannot grow with a reader that stopped reading.
///
/// Two limits: lines of a stream (`live`) are dropped first, as soon as `droppableLimit` bytes would be
/// waiting, which keeps room for the answers to commands. An answer is dropped only when `limit` bytes
/// are already waiting (the reader has fallen that far behind), so one large answer to a reader that
/// keeps up always goes out whole; the queue holds at most `limit` plus one answer. What was dropped is
/// counted so the owner can say so. `DescriptorWriter` writes it out.
struct OutputQueue {
    let limit: Int
    let droppableLimit: Int
    private var storage: [UInt8] = []
    private var start = 0
    private(set) var droppedLines = 0
    private(set) var droppedBytes = 0

    init(limit: Int, droppableLimit: Int) {
        self.limit = limit
        self.droppableLimit = min(droppableLimit, limit)
    }

    var count: Int { storage.count - start }
    var isEmpty: Bool { count == 0 }

    /// Queues `bytes`, or drops them (returning false) when the queue is too full for their kind.
    @discardableResult
    mutating func append(_ bytes: [UInt8], droppable: Bool) -> Bool {
        guard !bytes.isEmpty else { return true }
        let fits = droppable ? count + bytes.count <= droppableLimit : count < limit
        guard fits else {
            if droppable { droppedLines += 1 } else { droppedBytes += bytes.count }
            return false
        }
        storage += bytes
        return true
    }

    /// Calls `body` with the waiting bytes (contiguous); it returns how many it wrote, which are removed.
    mutating func drain(_ body: (UnsafeRawBufferPointer) -> Int) {
        let written = storage.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[start...])) }
        start += max(0, min(written, count))
        if start == storage.count {
            storage.removeAll(keepingCapacity: storage.capacity <= 64 * 1024)
            start = 0
        } else if start >= 16 * 1024 && start * 2 >= storage.count {
            storage.removeSubrange(0..<start)
            start = 0
        }
    }

    /// Drops everything waiting (the reader is gone).
    mutating func removeAll() {
        storage = []
        start = 0
    }

    /// Returns and resets the drop counters.
    mutating func takeDropCounts() -> (lines: Int, bytes: Int) {
        defer { droppedLines = 0; droppedBytes = 0 }
        return (droppedLines, droppedBytes)
    }
}
