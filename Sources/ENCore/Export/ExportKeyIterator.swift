/// Streams the valid keys of a verified export in file order, `keys` and `revised_keys` interleaved
/// as they appear, one key per `next()` and nothing kept behind: a 2-million-key file
/// costs the same memory as a 2-key one beyond the file itself.
///
/// A value type holding its position, so a caller can stop after any key (a matcher working in
/// event-loop slices) and resume later. Invalid key records are skipped and tallied in `skipped`;
/// a record that does not parse ends the stream with an error, since the rest cannot be trusted.
/// Only `VerifiedExport` makes one.
public struct ExportKeyIterator: Sendable {
    private let exportBin: [UInt8]
    private var position: Int
    public private(set) var skipped = SkippedKeys()
    /// Key records read so far, valid or not.
    public private(set) var recordsRead = 0

    init(exportBin: [UInt8]) {
        self.exportBin = exportBin
        position = min(ExportHeader.magic.count, exportBin.count)
    }

    public var isFinished: Bool { position >= exportBin.count }

    /// The next valid key and the list it came from, or nil at the end of the file.
    public mutating func next() throws(ExportError) -> (key: DiagnosisKey, list: ExportKeyList)? {
        // A local copy of the array (a reference, not the bytes) so reading it does not overlap the
        // mutation of `position` inside the closure.
        let bytes = exportBin
        do {
            return try bytes.withBytes { (buffer) throws(WireFormatError) -> (key: DiagnosisKey, list: ExportKeyList)? in
                try nextKey(in: buffer)
            }
        } catch {
            position = exportBin.count
            throw .malformed(file: ExportArchive.exportBinName, error)
        }
    }

    private mutating func nextKey(
        in buffer: UnsafeRawBufferPointer
    ) throws(WireFormatError) -> (key: DiagnosisKey, list: ExportKeyList)? {
        var reader = ProtobufReader(buffer, range: position..<buffer.count)
        defer { position = reader.position }
        while !reader.isAtEnd {
            let tag = try reader.readTag()
            let list: ExportKeyList
            switch tag.field {
            case 7: list = .keys
            case 8: list = .revisedKeys
            default:
                try reader.skip(tag)
                continue
            }
            try reader.require(.lengthDelimited, tag, in: "TemporaryExposureKeyExport")
            let record = try ExportKeyRecord.decode(buffer, range: try reader.readLengthDelimited())
            recordsRead += 1
            switch record.validated(in: list) {
            case .success(let key): return (key, list)
            case .failure(let reason): skipped.record(reason)
            }
        }
        return nil
    }
}
