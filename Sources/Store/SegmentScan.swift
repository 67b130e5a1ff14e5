/// What one pass over a segment's bytes finds: the records whose CRC verifies, in file order, and how
/// much lies outside them.
///
/// Damage never stops the scan: where no valid record starts, it moves on one byte and looks again,
/// so a damaged record costs only itself. Pure; the ring log runs it when opening and when reading.
struct SegmentScan {
    struct Entry: Hashable {
        /// Where the record's header starts in the segment.
        var offset: Int
        var header: RecordHeader
        var payloadRange: Range<Int> { offset + RecordHeader.size..<offset + header.recordSize }
    }

    private(set) var records: [Entry] = []
    /// Bytes between valid records (or before the first) that belong to none: damage left in place.
    private(set) var skippedBytes = 0
    /// The end of the last valid record; what follows it is a torn tail or damage.
    private(set) var validEnd = 0

    init(_ bytes: UnsafeRawBufferPointer) {
        var offset = 0
        while offset + RecordHeader.size <= bytes.count {
            if let header = RecordHeader.validRecord(in: bytes, at: offset) {
                records.append(Entry(offset: offset, header: header))
                skippedBytes += offset - validEnd
                offset += header.recordSize
                validEnd = offset
            } else {
                offset += 1
            }
        }
    }

    init(_ bytes: [UInt8]) {
        self = bytes.withUnsafeBytes { SegmentScan($0) }
    }

    /// Sequence numbers missing before and between the valid records, given the number the segment
    /// starts at: records lost to damage.
    func missingRecords(from firstSequence: UInt32) -> Int {
        var expected = Int64(firstSequence)
        var missing = 0
        for entry in records {
            missing += Int(max(0, Int64(entry.header.sequence) - expected))
            expected = Int64(entry.header.sequence) + 1
        }
        return missing
    }

    /// The sequence number the next record after this segment's valid ones should carry.
    func nextSequence(from firstSequence: UInt32) -> UInt32 {
        records.last.map { $0.header.sequence &+ 1 } ?? firstSequence
    }
}
