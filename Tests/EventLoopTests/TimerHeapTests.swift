import Testing
import EventLoop

@Suite struct TimerHeapTests {
    private func at(_ nanoseconds: Int64) -> MonotonicInstant { MonotonicInstant(nanoseconds: nanoseconds) }

    private func drain(_ heap: inout TimerHeap<String>) -> [String] {
        var order: [String] = []
        while let entry = heap.popEarliest() { order.append(entry.payload) }
        return order
    }

    @Test func popsInDeadlineOrderWithFIFOTies() {
        var heap = TimerHeap<String>()
        heap.insert("c1", at: at(30))
        heap.insert("a", at: at(10))
        heap.insert("c2", at: at(30))
        heap.insert("b", at: at(20))
        heap.insert("c3", at: at(30))
        heap.insert("a2", at: at(10))
        #expect(heap.count == 6)
        #expect(heap.earliest?.payload == "a")
        #expect(drain(&heap) == ["a", "a2", "b", "c1", "c2", "c3"])
        #expect(heap.isEmpty)
        #expect(heap.popEarliest() == nil)
    }

    @Test func sequenceNumbersIncreaseFromZero() {
        var heap = TimerHeap<String>()
        #expect(heap.nextSequence == 0)
        #expect(heap.insert("x", at: at(5)) == 0)
        #expect(heap.insert("y", at: at(1)) == 1)
        #expect(heap.nextSequence == 2)
        _ = heap.popEarliest()
        #expect(heap.nextSequence == 2)
    }

    @Test func removesBySequenceAnywhereInTheHeap() {
        var heap = TimerHeap<String>()
        var sequences: [String: UInt64] = [:]
        for (name, deadline) in [("a", 1), ("b", 2), ("c", 3), ("d", 4), ("e", 5), ("f", 6), ("g", 7)] {
            sequences[name] = heap.insert(name, at: at(Int64(deadline)))
        }
        #expect(heap.remove(sequence: sequences["a"]!) == "a")   // the root
        #expect(heap.remove(sequence: sequences["g"]!) == "g")   // a leaf
        #expect(heap.remove(sequence: sequences["c"]!) == "c")   // an inner node
        #expect(heap.remove(sequence: sequences["c"]!) == nil)   // already gone
        #expect(heap.remove(sequence: 999) == nil)               // never existed
        #expect(!heap.contains(sequence: sequences["c"]!))
        #expect(heap.contains(sequence: sequences["d"]!))
        #expect(drain(&heap) == ["b", "d", "e", "f"])
    }

    @Test func popDueStopsAtNowAndAtTheFence() {
        var heap = TimerHeap<String>()
        heap.insert("due", at: at(10))
        heap.insert("later", at: at(20))
        let fence = heap.nextSequence
        heap.insert("due but after the fence", at: at(10))
        #expect(heap.popDue(at: at(10), insertedBefore: fence)?.payload == "due")
        #expect(heap.popDue(at: at(10), insertedBefore: fence) == nil)
        #expect(heap.popDue(at: at(10), insertedBefore: heap.nextSequence)?.payload == "due but after the fence")
        #expect(heap.popDue(at: at(19), insertedBefore: heap.nextSequence) == nil)
        #expect(heap.popDue(at: at(20), insertedBefore: heap.nextSequence)?.payload == "later")
    }

    /// Random inserts (with many deadline ties), removals and pops, checked step by step against a
    /// plain array kept sorted by (deadline, sequence).
    @Test(arguments: [1, 2, 3, 42] as [UInt64])
    func matchesASortedArrayUnderRandomOperations(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        var heap = TimerHeap<Int>()
        var reference: [(deadline: Int64, sequence: UInt64, payload: Int)] = []
        for operation in 0..<10_000 {
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<5:
                let deadline = Int64.random(in: 0..<50, using: &random)
                let sequence = heap.insert(operation, at: at(deadline))
                // The new sequence is the largest yet: it goes after every entry with a deadline
                // not later than its own.
                var low = 0, high = reference.count
                while low < high {
                    let middle = (low + high) / 2
                    if reference[middle].deadline <= deadline { low = middle + 1 } else { high = middle }
                }
                reference.insert((deadline, sequence, operation), at: low)
            case 5..<7:
                guard !reference.isEmpty else { continue }
                let victim = reference.remove(at: Int.random(in: 0..<reference.count, using: &random))
                #expect(heap.remove(sequence: victim.sequence) == victim.payload)
            case 7:
                // Removing something already gone changes nothing.
                #expect(heap.remove(sequence: heap.nextSequence + 1) == nil)
            default:
                let popped = heap.popEarliest()
                let expected = reference.isEmpty ? nil : reference.removeFirst()
                #expect(popped?.payload == expected?.payload)
                #expect(popped?.deadline.nanoseconds == expected?.deadline)
            }
            #expect(heap.count == reference.count)
            #expect(heap.earliest?.sequence == reference.first?.sequence)
        }
        while let entry = heap.popEarliest() {
            #expect(entry.payload == reference.removeFirst().payload)
        }
        #expect(reference.isEmpty)
    }
}
