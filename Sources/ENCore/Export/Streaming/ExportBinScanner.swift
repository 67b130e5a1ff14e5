/// Walks the top-level `TemporaryExposureKeyExport` message of export.bin through an `ExportBinWindow`,
/// the streaming counterpart of `ExportHeader.decode` and `ExportKeyIterator`: the same fields, the same
/// wire-type rules, the same errors at the same offsets.
///
/// Header fields update `header` as they pass. Key records are either decoded one at a time and returned
/// by `nextKeyRecord()` (`decodesKeys`), or counted and skipped without being looked at, as the header-only
/// pass of verification does. Only whole fields are ever decoded, so a field longer than the window is an
/// error here where the in-memory reader would accept it; no real export has one.
struct ExportBinScanner {
    let window: ExportBinWindow
    let decodesKeys: Bool
    private(set) var header = ExportHeader()
    /// SignatureInfos seen, including those past `ExportHeader.maxSignatureInfos`, which are not kept.
    private(set) var signatureInfoCount = 0

    init(window: ExportBinWindow, decodesKeys: Bool) {
        self.window = window
        self.decodesKeys = decodesKeys
    }

    /// Consumes the 16-byte magic, or throws `badHeader`.
    func checkMagic() throws(ExportFileError) {
        let magic = ExportHeader.magic
        guard try window.fill(atLeast: magic.count),
              window.buffer[window.start..<(window.start + magic.count)].elementsEqual(magic)
        else { throw .export(.badHeader) }
        window.consume(magic.count)
    }

    /// The next key record and its list, or nil at the end of export.bin (every byte read and checked).
    /// When not decoding keys, always nil: the whole file is walked in one call.
    mutating func nextKeyRecord() throws(ExportFileError) -> (record: ExportKeyRecord, list: ExportKeyList)? {
        let message = "TemporaryExposureKeyExport"
        while try window.fill(atLeast: 1) {
            let tag = try readTag()
            switch tag.field {
            case 1, 2:
                try require(.fixed64, tag, in: message)
                let value = try readFixed64()
                if tag.field == 1 { header.startTimestamp = value } else { header.endTimestamp = value }
            case 3:
                try require(.lengthDelimited, tag, in: message)
                header.region = try withWholeField(tag) { buffer, range in
                    String(decoding: UnsafeRawBufferPointer(rebasing: buffer[range]), as: UTF8.self)
                }
            case 4, 5:
                try require(.varint, tag, in: message)
                let value = Int32(truncatingIfNeeded: try readVarint())
                if tag.field == 4 { header.batchNum = value } else { header.batchSize = value }
            case 6:
                try require(.lengthDelimited, tag, in: message)
                let info = try withWholeField(tag) { (buffer, range) throws(WireFormatError) in
                    try SignatureInfo.decode(buffer, range: range)
                }
                signatureInfoCount += 1
                if signatureInfoCount <= ExportHeader.maxSignatureInfos { header.signatureInfos.append(info) }
            case 7, 8:
                try require(.lengthDelimited, tag, in: message)
                let list: ExportKeyList = tag.field == 7 ? .keys : .revisedKeys
                if list == .keys { header.keyRecordCount += 1 } else { header.revisedKeyRecordCount += 1 }
                guard decodesKeys else {
                    try skipLengthDelimited()
                    continue
                }
                let record = try withWholeField(tag) { (buffer, range) throws(WireFormatError) in
                    try ExportKeyRecord.decode(buffer, range: range)
                }
                return (record, list)
            default:
                try skip(tag)
            }
        }
        return nil
    }

    // MARK: Wire primitives over the window

    /// A tag, its offset made absolute.
    private func readTag() throws(ExportFileError) -> ProtobufReader.Tag {
        var tag = try withReader { (reader) throws(WireFormatError) in try reader.readTag() }
        // Consuming never moves the window's storage, so its offset is still the one the tag was read at.
        tag.offset += window.storageOffset
        return tag
    }

    private func readVarint() throws(ExportFileError) -> UInt64 {
        try withReader { (reader) throws(WireFormatError) in try reader.readVarint() }
    }

    /// Runs `body` on a reader over what the window holds (at least the ten bytes of any varint, unless
    /// export.bin ends sooner), then consumes what it read. Offsets in its errors become absolute.
    private func withReader<T>(
        _ body: (inout ProtobufReader) throws(WireFormatError) -> T
    ) throws(ExportFileError) -> T {
        _ = try window.fill(atLeast: 10)
        var reader = ProtobufReader(window.buffer, range: window.start..<window.end)
        do {
            let value = try body(&reader)
            window.consume(reader.position - window.start)
            return value
        } catch {
            throw .malformedExportBin(error.shifted(by: window.storageOffset))
        }
    }

    private func readFixed64() throws(ExportFileError) -> UInt64 {
        guard try window.fill(atLeast: 8) else { throw .malformedExportBin(.truncated(offset: window.position)) }
        let value = UInt64(littleEndian: window.buffer.loadUnaligned(fromByteOffset: window.start, as: UInt64.self))
        window.consume(8)
        return value
    }

    /// A length prefix, checked against what export.bin declares it still holds.
    private func readLength() throws(ExportFileError) -> Int {
        let offset = window.position
        let length = try readVarint()
        let available = window.remaining
        guard length <= UInt64(available) else {
            throw .malformedExportBin(.lengthOutOfBounds(offset: offset, length: length, available: available))
        }
        return Int(length)
    }

    /// Decodes a length-delimited field whole from the window; `body` gets the window's buffer and the
    /// payload's range in it.
    private func withWholeField<T>(
        _ tag: ProtobufReader.Tag, _ body: (UnsafeRawBufferPointer, Range<Int>) throws(WireFormatError) -> T
    ) throws(ExportFileError) -> T {
        let length = try readLength()
        guard length <= ExportBinWindow.maxWholeField else {
            throw .fieldTooLarge(field: tag.field, offset: tag.offset, length: length, limit: ExportBinWindow.maxWholeField)
        }
        guard try window.fill(atLeast: length) else {
            throw .malformedExportBin(.truncated(offset: window.position))
        }
        let range = window.start..<(window.start + length)
        do {
            let value = try body(window.buffer, range)
            window.consume(length)
            return value
        } catch {
            throw .malformedExportBin(error.shifted(by: window.storageOffset))
        }
    }

    private func skipLengthDelimited() throws(ExportFileError) {
        let length = try readLength()
        guard try window.discard(length) else { throw .malformedExportBin(.truncated(offset: window.position)) }
    }

    private func require(_ expected: WireType, _ tag: ProtobufReader.Tag, in message: String) throws(ExportFileError) {
        guard tag.wireType == expected else {
            throw .malformedExportBin(.wrongWireType(message: message, field: tag.field, found: tag.wireType,
                                                     offset: tag.offset))
        }
    }

    /// Moves past an unknown field of any wire type, groups included, without needing it whole.
    private func skip(_ tag: ProtobufReader.Tag) throws(ExportFileError) {
        switch tag.wireType {
        case .varint: _ = try readVarint()
        case .fixed64: try discardFixed(8)
        case .fixed32: try discardFixed(4)
        case .lengthDelimited: try skipLengthDelimited()
        case .startGroup: try skipGroup(opened: tag)
        case .endGroup: throw .malformedExportBin(.unmatchedEndGroup(offset: tag.offset))
        }
    }

    private func discardFixed(_ count: Int) throws(ExportFileError) {
        guard try window.fill(atLeast: count) else { throw .malformedExportBin(.truncated(offset: window.position)) }
        window.consume(count)
    }

    /// Skips to the end-group tag that closes `opened`, with an explicit, bounded stack.
    private func skipGroup(opened: ProtobufReader.Tag) throws(ExportFileError) {
        var open: [UInt32] = [opened.field]
        while let innermost = open.last {
            let tag = try readTag()
            switch tag.wireType {
            case .startGroup:
                guard open.count < ProtobufReader.maxGroupDepth else {
                    throw .malformedExportBin(.groupsTooDeep(offset: tag.offset))
                }
                open.append(tag.field)
            case .endGroup:
                guard tag.field == innermost else { throw .malformedExportBin(.unmatchedEndGroup(offset: tag.offset)) }
                open.removeLast()
            default:
                try skip(tag)
            }
        }
    }
}
