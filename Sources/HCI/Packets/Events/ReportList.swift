/// One report of an advertising-report event, legacy or extended: what the shared list framing needs.
protocol AdvertisingReportEntry {
    /// Bytes every report takes before its variable-length data.
    static var fixedLength: Int { get }
    var encodedLength: Int { get }
    func encode(into buffer: inout [UInt8])
    init(from reader: inout ByteReader) throws(HCIDecodeError)
}

/// The framing both advertising-report subevents share: a report count, then the reports back to back,
/// using up the parameters exactly.
enum ReportList {
    /// Whether `reports` fit into `limit` parameter bytes, count byte included.
    static func fits<Report: AdvertisingReportEntry>(_ reports: [Report], limit: Int) -> Bool {
        1 + reports.reduce(0) { $0 + $1.encodedLength } <= limit
    }

    static func encode<Report: AdvertisingReportEntry>(_ reports: [Report], into buffer: inout [UInt8]) {
        buffer.append(UInt8(reports.count))
        for report in reports { report.encode(into: &buffer) }
    }

    static func decode<Report: AdvertisingReportEntry>(_ parameters: ArraySlice<UInt8>) throws(HCIDecodeError) -> [Report] {
        var reader = ByteReader(parameters)
        let count = Int(try reader.uint8())
        guard count > 0 else { throw .noReports }
        // Each report needs at least its fixed fields, so a count that cannot fit is caught before any
        // allocation sized by it.
        guard count * Report.fixedLength <= reader.remaining else {
            throw .reportCountOverrun(count: count, available: reader.remaining)
        }
        var reports: [Report] = []
        reports.reserveCapacity(count)
        for _ in 0..<count { reports.append(try Report(from: &reader)) }
        try reader.finish()
        return reports
    }
}
