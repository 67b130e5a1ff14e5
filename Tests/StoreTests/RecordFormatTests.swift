import Testing
@testable import Store

@Suite struct RecordFormatTests {
    private func record(_ payload: [UInt8], sequence: UInt32, time: Int64) -> [UInt8] {
        var bytes: [UInt8] = []
        RecordHeader.appendRecord(payload: payload, sequence: sequence, time: time, to: &bytes)
        return bytes
    }

    @Test func headerRoundTrips() {
        let bytes = record([1, 2, 3], sequence: 0xDEAD_BEEF, time: -5)
        #expect(bytes.count == RecordHeader.size + 3)
        #expect(Array(bytes[0..<2]) == [0xE5, 0xB1])  // the magic, little-endian
        let header = bytes.withUnsafeBytes { RecordHeader.validRecord(in: $0, at: 0) }
        #expect(header == RecordHeader(payloadLength: 3, sequence: 0xDEAD_BEEF, time: -5))
    }

    @Test func anyFlippedBitInvalidatesTheRecord() {
        let bytes = record(Array(0..<40), sequence: 7, time: 1_700_000_000)
        for index in bytes.indices {
            for bit in 0..<8 {
                var damaged = bytes
                damaged[index] ^= 1 << bit
                #expect(damaged.withUnsafeBytes { RecordHeader.validRecord(in: $0, at: 0) } == nil,
                        "byte \(index) bit \(bit)")
            }
        }
    }

    @Test func incompleteRecordIsInvalid() {
        let bytes = record([9, 9, 9, 9], sequence: 1, time: 0)
        for length in 0..<bytes.count {
            #expect(Array(bytes.prefix(length)).withUnsafeBytes { RecordHeader.validRecord(in: $0, at: 0) } == nil)
        }
    }

    @Test func scanSkipsDamageAndResynchronises() {
        let first = record([1], sequence: 10, time: 1)
        let second = record([2, 2], sequence: 11, time: 2)
        let third = record([3, 3, 3], sequence: 12, time: 3)
        var bytes = first + second + third
        bytes[first.count + 5] ^= 0x40  // the second record's sequence number
        let scan = SegmentScan(bytes)
        #expect(scan.records.map(\.header.sequence) == [10, 12])
        #expect(scan.skippedBytes == second.count)
        #expect(scan.validEnd == bytes.count)
        #expect(scan.missingRecords(from: 10) == 1)
        #expect(scan.nextSequence(from: 10) == 13)
        #expect(scan.records[1].payloadRange == first.count + second.count + RecordHeader.size..<bytes.count)
    }

    @Test func scanStopsAtTornTail() {
        let whole = record([1, 2, 3, 4], sequence: 0, time: 1)
        let torn = Array(record([5, 6, 7, 8], sequence: 1, time: 2).dropLast(2))
        let scan = SegmentScan(whole + torn)
        #expect(scan.records.count == 1)
        #expect(scan.validEnd == whole.count)
        #expect(scan.skippedBytes == 0)
        #expect(SegmentScan([]).nextSequence(from: 42) == 42)
    }

    @Test func segmentNames() {
        #expect(SegmentName.name(firstSequence: 42) == "0000000042.log")
        #expect(SegmentName.name(firstSequence: .max) == "4294967295.log")
        #expect(SegmentName.firstSequence(of: "0000000042.log") == 42)
        #expect(SegmentName.firstSequence(of: "4294967295.log") == .max)
        for name in ["lock", "42.log", "000000004x.log", "0000000042.tmp", "9999999999.log", "+000000042.log"] {
            #expect(SegmentName.firstSequence(of: name) == nil, "\(name)")
        }
    }
}
