/// A binary min-heap of timers keyed by (deadline, sequence number), with removal by sequence.
///
/// The sequence number is assigned here, increasing with every insertion, and does two jobs:
/// it breaks deadline ties in insertion order (FIFO, hence deterministic simulations), and it
/// names the entry for cancellation. A position index makes cancellation O(log n) and frees the
/// entry at once; lazy cancellation would let an agent that keeps re-arming long timeouts (a
/// 24-hour watchdog, say) accumulate dead entries for a day.
///
/// A pure value: the loops own one each, and tests exercise it directly.
public struct TimerHeap<Payload> {
    public struct Entry {
        public let deadline: MonotonicInstant
        public let sequence: UInt64
        public let payload: Payload

        /// Heap order: earlier deadline first, then earlier insertion.
        func precedes(_ other: Entry) -> Bool {
            deadline != other.deadline ? deadline < other.deadline : sequence < other.sequence
        }
    }

    private var entries: [Entry] = []
    /// Where each live entry sits in `entries`, kept in step with every move.
    private var positions: [UInt64: Int] = [:]

    /// The sequence number the next insertion will get. Everything inserted so far has a smaller
    /// one, which is what lets a loop fence off timers scheduled during the current tick.
    public private(set) var nextSequence: UInt64 = 0

    public init() {}

    public var count: Int { entries.count }
    public var isEmpty: Bool { entries.isEmpty }

    /// The entry that would be popped next.
    public var earliest: Entry? { entries.first }

    public func contains(sequence: UInt64) -> Bool { positions[sequence] != nil }

    /// Adds `payload` due at `deadline` and returns its sequence number.
    @discardableResult
    public mutating func insert(_ payload: Payload, at deadline: MonotonicInstant) -> UInt64 {
        let sequence = nextSequence
        nextSequence += 1
        entries.append(Entry(deadline: deadline, sequence: sequence, payload: payload))
        positions[sequence] = entries.count - 1
        siftUp(from: entries.count - 1)
        return sequence
    }

    /// Removes and returns the earliest entry.
    public mutating func popEarliest() -> Entry? {
        guard !entries.isEmpty else { return nil }
        return removeEntry(at: 0)
    }

    /// Removes and returns the earliest entry if it is due at `now` and was inserted before
    /// `fence` (a former `nextSequence`); nil otherwise.
    ///
    /// As long as deadlines inserted after the fence are not earlier than `now`, they sort after
    /// every fenced-in due entry, so stopping at the first non-qualifying entry loses nothing.
    public mutating func popDue(at now: MonotonicInstant, insertedBefore fence: UInt64) -> Entry? {
        guard let first = entries.first, first.deadline <= now, first.sequence < fence else { return nil }
        return removeEntry(at: 0)
    }

    /// Removes the entry with `sequence` and returns its payload; nil if there is none.
    @discardableResult
    public mutating func remove(sequence: UInt64) -> Payload? {
        guard let index = positions[sequence] else { return nil }
        return removeEntry(at: index).payload
    }

    private mutating func removeEntry(at index: Int) -> Entry {
        let last = entries.count - 1
        if index != last { swapAt(index, last) }
        let removed = entries.removeLast()
        positions[removed.sequence] = nil
        if index < entries.count {
            // The entry moved into the hole came from the bottom; it may belong above or below.
            siftDown(from: siftUp(from: index))
        }
        return removed
    }

    /// Moves the entry at `index` up while it precedes its parent; returns where it ended.
    @discardableResult
    private mutating func siftUp(from index: Int) -> Int {
        var child = index
        while child > 0 {
            let parent = (child - 1) / 2
            guard entries[child].precedes(entries[parent]) else { break }
            swapAt(child, parent)
            child = parent
        }
        return child
    }

    private mutating func siftDown(from index: Int) {
        var parent = index
        while true {
            let left = 2 * parent + 1
            guard left < entries.count else { return }
            let right = left + 1
            let smaller = right < entries.count && entries[right].precedes(entries[left]) ? right : left
            guard entries[smaller].precedes(entries[parent]) else { return }
            swapAt(parent, smaller)
            parent = smaller
        }
    }

    private mutating func swapAt(_ i: Int, _ j: Int) {
        entries.swapAt(i, j)
        positions[entries[i].sequence] = i
        positions[entries[j].sequence] = j
    }
}

extension TimerHeap: Sendable where Payload: Sendable {}
extension TimerHeap.Entry: Sendable where Payload: Sendable {}
