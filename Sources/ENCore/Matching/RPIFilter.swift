/// A blocked Bloom filter over a set of stored RPIs (`RPIFiltersByDay` keeps one per day): the matcher's
/// first test for each of a key's RPIs.
///
/// A stored RPI sets four bits in one 64-bit word: its bytes 12…15 pick the word, its byte 8 two bits of
/// the word's low half and its byte 9 two bits of the high half, through two 256-entry tables of bit
/// pairs. RPIs are AES outputs, so those bytes are already uniform and need no hashing. The word count is
/// the power of two that gives each stored RPI 32 to 64 bits: false positives stay under 0.1 % whatever
/// the number of sightings (`enbeacon bench match` measures it), for at most 8 bytes per stored RPI.
///
/// Why this shape (each measured with `bench match` against the key schedule alone): a lookup must cost
/// next to nothing beside the 144 AES blocks a key already pays for. One word per RPI makes one cache
/// miss at most. Bit pairs from two small tables (4 KiB, shared by all filters, which stay cached between
/// keys) beat computing four shifts (more than twice the instructions) and one 2,048-entry table of
/// four-bit patterns (16 KiB, evicted by the key schedule, and nearly twice the false positives, from
/// probes whose pattern equals that of an RPI already in the word).
/// The tables hold the patterns' complements, so a lookup is the word ORed with them: all ones when
/// every bit of the pattern is set.
///
/// The words live in memory a `Words` object owns, copied before a write when shared (so the filter is a value
/// like an array), and the filter also keeps plain pointers to them and to the tables: its `probe` is then
/// read without touching a reference, so the matcher retains and releases nothing per key. Hence
/// `@unchecked Sendable`: the memory behind the pointers is written only through a uniquely referenced `Words`.
public struct RPIFilter: @unchecked Sendable {
    /// Filter bits per stored RPI, at least: the word count is rounded up to a power of two from here.
    public static let minimumBitsPerRPI = 32
    /// Entries in each of the two pattern tables, one per value of a byte.
    static let patternsPerHalf = 256

    /// The words' memory, and a plain pointer to it (`storage.pointer`).
    private var storage: Words
    private var words: UnsafeMutablePointer<UInt64>
    /// The word count − 1: the word count is a power of two, so an index is a mask away.
    private let wordMask: UInt32
    /// `patternTable`, read without the lazy global's check.
    private let inversePatterns: UnsafePointer<UInt64>

    /// Zeroed words, freed with their owner.
    final class Words {
        let pointer: UnsafeMutablePointer<UInt64>
        let count: Int

        init(count: Int) {
            pointer = .allocate(capacity: count)
            pointer.initialize(repeating: 0, count: count)
            self.count = count
        }

        func copy() -> Words {
            let copy = Words(count: count)
            copy.pointer.update(from: pointer, count: count)
            return copy
        }

        deinit { pointer.deallocate() }
    }

    /// The complements of the bit pairs, shared by every filter: entries 0…255 (for byte 8) clear two
    /// bits of the low half, entries 256…511 (for byte 9) two bits of the high half, so a pattern always
    /// has four bits. A fixed seed: the same sightings always build the same filter, so a measured rate
    /// can be reproduced. Made straight into memory that is never freed (4 KiB, once per process), for the
    /// filters' plain pointers: no array of them is kept beside it (4 KiB more of a wristband's RAM).
    struct PatternTable: @unchecked Sendable {
        let pointer: UnsafePointer<UInt64>
    }
    static let patternTable: PatternTable = {
        let count = 2 * patternsPerHalf
        let table = UnsafeMutablePointer<UInt64>.allocate(capacity: count)
        var rng = SplitMix64(seed: 0x5EED_F117_E4B1_7500)
        for i in 0..<count {
            let half: UInt64 = i < patternsPerHalf ? 0 : 32
            var pair: UInt64 = 0
            while pair.nonzeroBitCount < 2 { pair |= 1 &<< (half + (rng.next() & 31)) }
            (table + i).initialize(to: ~pair)
        }
        return PatternTable(pointer: table)
    }()

    /// Memory held by the pattern table, once for all filters.
    public static var patternByteCount: Int { 2 * patternsPerHalf * 8 }

    /// Memory held by this filter's words.
    public var byteCount: Int { storage.count * 8 }

    /// An empty filter sized for `count` RPIs.
    public init(capacity count: Int) {
        var wordCount = 1
        while wordCount * 64 < count * Self.minimumBitsPerRPI { wordCount *= 2 }
        storage = Words(count: wordCount)
        words = storage.pointer
        wordMask = UInt32(wordCount - 1)
        inversePatterns = Self.patternTable.pointer
    }

    public mutating func insert(_ rpi: Bytes16) {
        if !isKnownUniquelyReferenced(&storage) {
            storage = storage.copy()
            words = storage.pointer
        }
        let slots = rpi.withUnsafeBytes { Self.slots($0, rpiAt: 0, wordMask) }
        words[slots.word] |= ~(inversePatterns[slots.low] & inversePatterns[slots.high])
    }

    /// Whether `rpi` may be stored: false means it is not.
    public func mayContain(_ rpi: Bytes16) -> Bool {
        rpi.withUnsafeBytes { probe.covers($0, 0) }
    }

    /// The lookup through plain pointers, for the hot loop: valid while this filter (or a copy of it that has
    /// not been written to) lives.
    @inline(__always)
    var probe: Probe { Probe(words: UnsafePointer(words), inversePatterns: inversePatterns, wordMask: wordMask) }

    /// The filter's lookup without bounds checks: every index is masked into range by construction.
    /// `@unchecked Sendable` as the filter is: the words it reads are not written once the filter is shared.
    struct Probe: @unchecked Sendable {
        let words: UnsafePointer<UInt64>
        let inversePatterns: UnsafePointer<UInt64>
        let wordMask: UInt32

        /// The first RPI of `blocks` (16 bytes each) at or after `start`, and before `end`, that the
        /// filter lets through; `end` when there is none.
        ///
        /// A function of its own, never inlined: inside the matcher the loop shared registers with the
        /// caller's closures and reloaded its three pointers from the stack for every RPI. Alone it keeps
        /// everything in registers: six loads, three ALU operations and one almost never taken branch per
        /// RPI. (Folding a group of lookups with `max` before one branch costs two operations per RPI,
        /// where a fused compare-and-branch costs one.)
        @inline(never) @_optimize(speed)
        func firstCovered(_ blocks: UnsafeRawBufferPointer, from start: Int, to end: Int) -> Int {
            var j = start
            while j < end {
                if covers(blocks, j) { return j }
                j &+= 1
            }
            return end
        }

        /// Whether the filter lets RPI j of `blocks` through: every bit of its pattern is set in its word,
        /// so the word ORed with the pattern's complement is all ones.
        @inline(__always)
        func covers(_ blocks: UnsafeRawBufferPointer, _ j: Int) -> Bool {
            let slots = RPIFilter.slots(blocks, rpiAt: j &* 16, wordMask)
            return words[slots.word] | (inversePatterns[slots.low] & inversePatterns[slots.high]) == .max
        }
    }

    /// Where the RPI at `offset` in `raw` lives: its word (bytes 12…15, masked) and its two pattern-table
    /// entries (bytes 8 and 9). Read byte-wise from memory, so a batch of RPIs and a single one give the
    /// same slots on any byte order.
    @inline(__always)
    static func slots(_ raw: UnsafeRawBufferPointer, rpiAt offset: Int, _ wordMask: UInt32) -> (word: Int, low: Int, high: Int) {
        let top = raw.loadUnaligned(fromByteOffset: offset &+ 12, as: UInt32.self)
        let low = raw.load(fromByteOffset: offset &+ 8, as: UInt8.self)
        let high = raw.load(fromByteOffset: offset &+ 9, as: UInt8.self)
        return (Int(truncatingIfNeeded: top & wordMask), Int(truncatingIfNeeded: low),
                Int(truncatingIfNeeded: high) &+ patternsPerHalf)
    }
}
