import ENCore

/// How a batch of sightings becomes the payload of one ring-log record, and back.
///
/// One record per flush carries many sightings, so the 20-byte record header is shared; each sighting
/// takes 28 bytes, its time stored as an age in seconds before the record's time (the newest first-seen
/// in the batch). Little-endian:
///
///     payload:  0  format version  UInt8 (1)
///               1  entries, 28 bytes each:
///     entry:    0  RPI                        16 bytes, as broadcast
///              16  AEM                         4 bytes, as broadcast
///              20  age                        UInt16  record time − first seen, seconds
///              22  RSSI max                   Int8    127 (SignalStrength.notAvailable) in both: no RSSI
///              23  RSSI mean                  Int8
///              24  reports                    UInt16
///              26  seconds since prev. scan   UInt16
///
/// A batch spanning more than 65,535 s, or holding more than fits two bytes of record length, is
/// split into several records (still one write and one fsync).
enum SightingRecordFormat {
    static let version: UInt8 = 1
    static let entrySize = 28
    static let maximumEntries = (RecordHeader.maximumPayload - 1) / entrySize
    private static let maximumAge = Int64(UInt16.max)

    /// The records holding `sightings`, in order.
    static func records(for sightings: [Sighting]) -> [RingLog.NewRecord] {
        var records: [RingLog.NewRecord] = []
        var start = 0
        while start < sightings.count {
            var oldest = sightings[start].firstSeen, newest = oldest
            var end = start + 1
            while end < sightings.count, end - start < maximumEntries {
                let time = sightings[end].firstSeen
                guard max(newest, time) - min(oldest, time) <= maximumAge else { break }
                oldest = min(oldest, time)
                newest = max(newest, time)
                end += 1
            }
            records.append(encode(sightings[start..<end], time: newest))
            start = end
        }
        return records
    }

    private static func encode(_ sightings: ArraySlice<Sighting>, time: Int64) -> RingLog.NewRecord {
        var payload: [UInt8] = [version]
        payload.reserveCapacity(1 + sightings.count * entrySize)
        for s in sightings {
            s.rpi.withUnsafeBytes { payload.append(contentsOf: $0) }
            payload += s.aem.bytes
            payload.appendLittleEndian(UInt16(time - s.firstSeen))
            payload.append(UInt8(bitPattern: s.signal?.max ?? SignalStrength.notAvailable))
            payload.append(UInt8(bitPattern: s.signal?.mean ?? SignalStrength.notAvailable))
            payload.appendLittleEndian(s.reports)
            payload.appendLittleEndian(s.secondsSincePreviousScan)
        }
        return RingLog.NewRecord(time: time, payload: payload)
    }

    /// Sightings held by `records` records of `payloadBytes` bytes in all: entries have one size, so the
    /// count needs no reading.
    static func sightingCount(payloadBytes: Int, records: Int) -> Int {
        (payloadBytes - records) / entrySize
    }

    /// The sightings of one record, decoded on demand.
    struct Reader {
        private let payload: ArraySlice<UInt8>
        private let time: Int64
        let count: Int

        /// Nil for a record this version cannot read (a newer format, or a length that is not whole entries).
        init?(_ record: RingLog.Record) {
            guard let first = record.payload.first, first == SightingRecordFormat.version,
                  (record.payload.count - 1) % SightingRecordFormat.entrySize == 0 else { return nil }
            payload = record.payload
            time = record.time
            count = (record.payload.count - 1) / SightingRecordFormat.entrySize
        }

        subscript(index: Int) -> Sighting {
            precondition(index >= 0 && index < count)
            return payload.withUnsafeBytes { raw in
                let at = 1 + index * SightingRecordFormat.entrySize
                return Sighting(
                    rpi: Bytes16(loading: raw, at: at),
                    // The AEM's word holds its bytes in memory order, exactly as stored.
                    aem: AssociatedEncryptedMetadata(word: raw.loadUnaligned(fromByteOffset: at + 16, as: UInt32.self)),
                    firstSeen: time - Int64(raw.littleEndian(UInt16.self, at: at + 20)),
                    signal: SignalStrength(storedMax: Int8(bitPattern: raw[at + 22]), mean: Int8(bitPattern: raw[at + 23])),
                    reports: Int(raw.littleEndian(UInt16.self, at: at + 24)),
                    secondsSincePreviousScan: Int(raw.littleEndian(UInt16.self, at: at + 26)))
            }
        }
    }
}
