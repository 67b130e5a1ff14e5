import ENCore
import Testing
@testable import Store

@Suite struct SightingRecordFormatTests {
    private func decode(_ record: RingLog.NewRecord) -> [Sighting] {
        let read = RingLog.Record(sequence: 0, time: record.time, payload: record.payload[...])
        guard let reader = SightingRecordFormat.Reader(read) else { return [] }
        return (0..<reader.count).map { reader[$0] }
    }

    @Test func roundTripsEveryField() {
        let extremes = [
            Sighting(rpi: Bytes16(hex: "8be6cd371c5c891604bfbe49df845096")!, aem: AssociatedEncryptedMetadata(hex: "72033874")!,
                           firstSeen: 1_700_000_000, rssiMax: 20, rssiMean: .min, reports: 70_000, secondsSincePreviousScan: -3),
            Sighting(rpi: .zero, aem: AssociatedEncryptedMetadata(word: 0), firstSeen: 1_700_000_009 - 65_535,  // the largest age a record holds
                           rssiMax: -1, rssiMean: 0, reports: 65_535, secondsSincePreviousScan: 65_535),
            // No RSSI: stored as 127 in both bytes (the format is unchanged) and read back as no signal.
            Sighting(rpi: .zero, aem: AssociatedEncryptedMetadata(word: 1), firstSeen: 1_700_000_001, signal: nil,
                     reports: 2, secondsSincePreviousScan: 240),
        ]
        #expect(extremes[0].reports == 65_535 && extremes[0].secondsSincePreviousScan == 0)
        let records = SightingRecordFormat.records(for: extremes + sightings(0..<10))
        #expect(records.count == 1)
        #expect(records[0].time == 1_700_000_009)
        #expect(records[0].payload.count == 1 + 13 * 28)
        #expect(Array(records[0].payload[(1 + 2 * 28 + 22)...(1 + 2 * 28 + 23)]) == [127, 127])
        #expect(decode(records[0]) == extremes + sightings(0..<10))
        #expect(SightingRecordFormat.sightingCount(payloadBytes: records[0].payload.count, records: 1) == 13)
    }

    @Test func splitsWhereAgesWouldOverflow() {
        let spread = sightings(0..<5, spacing: 40_000)  // 0, 40,000, 80,000 … seconds
        let records = SightingRecordFormat.records(for: spread)
        #expect(records.map { decode($0).count } == [2, 2, 1])
        #expect(records.flatMap(decode) == spread)
    }

    @Test func splitsAtTheLargestPayload() {
        let many = sightings(0..<5_000, spacing: 0)
        let records = SightingRecordFormat.records(for: many)
        #expect(records.map { decode($0).count } == [2_340, 2_340, 320])
        #expect(records.allSatisfy { $0.payload.count <= RecordHeader.maximumPayload })
        #expect(records.flatMap(decode) == many)
    }

    @Test func unknownVersionsAndOddLengthsAreNotRead() {
        let payload = SightingRecordFormat.records(for: sightings(0..<2))[0].payload
        var newer = payload
        newer[0] = 2
        #expect(SightingRecordFormat.Reader(RingLog.Record(sequence: 0, time: 0, payload: newer[...])) == nil)
        #expect(SightingRecordFormat.Reader(RingLog.Record(sequence: 0, time: 0, payload: payload.dropLast())) == nil)
        #expect(SightingRecordFormat.Reader(RingLog.Record(sequence: 0, time: 0, payload: [])) == nil)
    }
}
