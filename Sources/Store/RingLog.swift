import SystemIO
/// A log of CRC-checked records in a ring of segment files under one directory, bounded in bytes and
/// in age, that survives power cuts at any moment.
///
/// - Appending is durable and cheap on flash: the records of one `append` go to the end of the newest
///   segment in one write and one fdatasync; nothing else is ever rewritten — no index, no header, no
///   metadata file. Starting a segment (every `segmentBytes`) costs one more fsync, on the directory.
/// - Opening recovers: a torn tail of the newest segment is cut back to its last valid record, and a
///   damaged record anywhere is skipped and counted (`recovery`), never a reason to refuse to start.
/// - `trim` removes whole segments from the old end: while the ring is over its byte budget, and once
///   every record in a segment is older than the cutoff.
///
/// Only a small summary per segment stays in memory; reading loads one segment at a time.
public final class RingLog {
    public struct Settings: Hashable, Sendable {
        /// Bytes the segments may take together; the oldest segment goes when a flush passes it.
        public var byteBudget: Int
        /// A new segment is started when the next write would take the newest one past this size.
        public var segmentBytes: Int

        public init(byteBudget: Int = 4 << 20, segmentBytes: Int = 64 << 10) {
            self.byteBudget = byteBudget
            self.segmentBytes = segmentBytes
        }
    }

    /// A record to append: its payload and the newest moment (Unix seconds) the payload describes.
    public struct NewRecord: Sendable {
        public var time: Int64
        public var payload: [UInt8]

        public init(time: Int64, payload: [UInt8]) {
            self.time = time
            self.payload = payload
        }
    }

    /// A record read back; `payload` is a slice of the segment being read, valid during the visit.
    public struct Record {
        public var sequence: UInt32
        public var time: Int64
        public var payload: ArraySlice<UInt8>
    }

    /// What the log has done since it was opened: the figures behind fsyncs per flush and bytes per day.
    public struct Statistics: Hashable, Sendable {
        public var appends = 0
        public var bytesAppended = 0
        public var fileSyncs = 0
        public var directorySyncs = 0
        public var segmentsStarted = 0
        public var segmentsRemoved = 0
    }

    /// The summary of one segment file kept in memory.
    struct Segment {
        var firstSequence: UInt32
        var bytes = 0
        var records = 0
        var payloadBytes = 0
        /// The newest record time in the segment; nil while it holds no valid record.
        var newestTime: Int64?
    }

    public let directory: String
    public let settings: Settings
    public let recovery: RecoveryReport
    public private(set) var statistics = Statistics()
    private let fileSystem: any FileSystem
    private var segments: [Segment]
    /// Wraps after 2^32 records — at one record a minute, in eight thousand years.
    private var nextSequence: UInt32

    /// Opens the log in `directory` (created 0700 if missing), recovering from whatever a crash left.
    public init(directory: String, settings: Settings = Settings(), fileSystem: any FileSystem) throws(SystemError) {
        precondition(settings.segmentBytes > 0 && settings.byteBudget >= 2 * settings.segmentBytes,
                     "the byte budget must hold at least two segments")
        self.directory = directory
        self.settings = settings
        self.fileSystem = fileSystem
        try fileSystem.makeDirectory(directory)

        let firstSequences = try fileSystem.fileNames(in: directory).compactMap(SegmentName.firstSequence).sorted()
        var report = RecoveryReport()
        var segments: [Segment] = []
        var expected: UInt32?
        for (index, first) in firstSequences.enumerated() {
            let path = directory + "/" + SegmentName.name(firstSequence: first)
            let bytes = try fileSystem.contents(of: path)
            let scan = SegmentScan(bytes)
            // A gap between segments is records lost at the end of the previous one.
            if let expected, first > expected { report.damagedRecords += Int(first - expected) }
            report.damagedRecords += scan.missingRecords(from: first)
            report.skippedBytes += scan.skippedBytes
            var size = bytes.count
            if index == firstSequences.count - 1 {
                // Only the newest segment is appended to, so only its tail must be clean. The cut need not
                // be durable: if a power cut undoes it, the next opening cuts again.
                if scan.validEnd < size {
                    try fileSystem.truncateFile(path, to: scan.validEnd)
                    report.truncatedBytes += size - scan.validEnd
                    size = scan.validEnd
                }
            } else {
                report.skippedBytes += size - scan.validEnd
            }
            segments.append(Segment(firstSequence: first, bytes: size, records: scan.records.count,
                                    payloadBytes: scan.records.reduce(0) { $0 + $1.header.payloadLength },
                                    newestTime: scan.records.map { $0.header.time }.max()))
            report.records += scan.records.count
            expected = scan.nextSequence(from: first)
        }
        report.segments = segments.count
        self.segments = segments
        self.recovery = report
        self.nextSequence = expected ?? 0
    }

    public var bytes: Int { segments.reduce(0) { $0 + $1.bytes } }
    public var recordCount: Int { segments.reduce(0) { $0 + $1.records } }
    public var payloadBytes: Int { segments.reduce(0) { $0 + $1.payloadBytes } }
    public var segmentCount: Int { segments.count }

    /// Appends `records` durably: one write and one fdatasync (plus a directory fsync when a segment is
    /// started). When it throws, nothing was appended and the log ends where it did.
    public func append(_ records: [NewRecord]) throws(SystemError) {
        guard !records.isEmpty else { return }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(records.reduce(0) { $0 + RecordHeader.size + $1.payload.count })
        var sequence = nextSequence
        for record in records {
            RecordHeader.appendRecord(payload: record.payload, sequence: sequence, time: record.time, to: &bytes)
            sequence &+= 1
        }
        // A batch larger than a segment gets an empty one to itself rather than never fitting.
        let fits = segments.last.map { $0.bytes == 0 || $0.bytes + bytes.count <= settings.segmentBytes } ?? false
        if !fits { try startSegment() }
        let index = segments.count - 1
        let path = path(of: segments[index])
        do throws(SystemError) {
            try fileSystem.write(bytes, to: path, at: segments[index].bytes)
            statistics.appends += 1
            statistics.bytesAppended += bytes.count
            try fileSystem.synchronizeFile(path)
            statistics.fileSyncs += 1
        } catch {
            // Not durable, so not appended: cut what may have reached the file so a retry starts clean.
            try? fileSystem.truncateFile(path, to: segments[index].bytes)
            throw error
        }
        segments[index].bytes += bytes.count
        segments[index].records += records.count
        segments[index].payloadBytes += records.reduce(0) { $0 + $1.payload.count }
        let newestTime = records.map { $0.time }.max()!
        segments[index].newestTime = max(segments[index].newestTime ?? newestTime, newestTime)
        nextSequence = sequence
    }

    /// Removes whole segments from the old end while the ring is over its byte budget or the segment's
    /// newest record is older than `cutoff` (Unix seconds). The newest segment is never removed while it
    /// holds readable records; once they have all expired a fresh segment takes its place, so sequence
    /// numbers carry on.
    ///
    /// Removals are not synchronized: a segment a power cut brings back is removed again next time.
    public func trim(expiredBefore cutoff: Int64 = .min) throws(SystemError) {
        if let newest = segments.last?.newestTime, newest < cutoff { try startSegment() }
        while segments.count > 1 {
            let oldest = segments[0]
            // A segment without any valid record holds nothing readable: it counts as expired.
            let expired = oldest.newestTime.map { $0 < cutoff } ?? true
            guard expired || bytes > settings.byteBudget else { break }
            try fileSystem.removeFile(path(of: oldest))
            segments.removeFirst()
            statistics.segmentsRemoved += 1
        }
    }

    /// Deletes every record: a fresh empty segment replaces all others (sequence numbers keep rising, so
    /// nothing deleted can be mistaken for something new after a crash mid-way).
    public func removeAll() throws(SystemError) {
        try startSegment()
        while segments.count > 1 {
            try fileSystem.removeFile(path(of: segments[0]))
            segments.removeFirst()
            statistics.segmentsRemoved += 1
        }
        try fileSystem.synchronizeDirectory(directory)
        statistics.directorySyncs += 1
    }

    /// Visits the valid records whose time is at or after `cutoff`, reading one segment at a time.
    public func forEachRecord(order: ReadOrder = .oldestFirst, notBefore cutoff: Int64 = .min,
                              _ visit: (Record) -> VisitDecision) throws(SystemError) {
        let readable = segments.filter { $0.newestTime.map { $0 >= cutoff } ?? false }
        for segmentIndex in order.indices(readable.count) {
            let bytes = try fileSystem.contents(of: path(of: readable[segmentIndex]))
            let scan = SegmentScan(bytes)
            for recordIndex in order.indices(scan.records.count) {
                let entry = scan.records[recordIndex]
                guard entry.header.time >= cutoff else { continue }
                let record = Record(sequence: entry.header.sequence, time: entry.header.time,
                                    payload: bytes[entry.payloadRange])
                if visit(record) == .stop { return }
            }
        }
    }

    private func path(of segment: Segment) -> String {
        directory + "/" + SegmentName.name(firstSequence: segment.firstSequence)
    }

    /// Starts an empty segment for the next sequence number; made durable in the directory at once, so
    /// records fsync'd into it cannot vanish with its name.
    private func startSegment() throws(SystemError) {
        let segment = Segment(firstSequence: nextSequence)
        try fileSystem.createFile(path(of: segment))
        segments.append(segment)
        statistics.segmentsStarted += 1
        try fileSystem.synchronizeDirectory(directory)
        statistics.directorySyncs += 1
    }
}
