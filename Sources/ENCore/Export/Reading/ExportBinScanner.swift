/// Walks the top-level `TemporaryExposureKeyExport` message of export.bin through an `ExportBinWindow`,
/// one field per `nextField()`, so a caller can stop after any field and resume on a later loop turn.
///
/// Every wire-format rule is `ProtobufReader`'s: the scanner only makes sure the window holds what a read
/// needs — ten bytes for a tag or a varint, or a whole field for the messages it decodes (a key record, a
/// SignatureInfo, the region) — and moves error offsets from the window to export.bin. When the window
/// cannot be filled that far, it holds everything export.bin has left, so a `truncated` error from the
/// reader is the file's. Unknown length-delimited fields are skipped through the window at any size;
/// fields that must be decoded whole (and unknown groups, which no export has) are refused past the
/// window's capacity (`fieldTooLarge`, `groupTooLarge`), where a reader holding the whole file would take
/// them. No real export comes close.
///
/// Header fields update `header` as they pass. Key records are decoded (`decodesKeys`) or counted and
/// skipped unread, as the verifying pass does.
struct ExportBinScanner {
    /// What one top-level field was.
    enum Field {
        /// A key record of `keys` or `revised_keys`: decoded when the scanner decodes keys, else nil.
        case keyRecord(ExportKeyRecord?, ExportKeyList)
        /// A header field (now in `header`) or an unknown field, skipped.
        case other
    }

    let window: ExportBinWindow
    let decodesKeys: Bool
    private(set) var header = ExportHeader()
    /// SignatureInfos seen, including those past `ExportHeader.maxSignatureInfos`, which are not kept.
    private(set) var signatureInfoCount = 0
    private var magicChecked = false

    private static let message = "TemporaryExposureKeyExport"
    /// The longest tag or varint.
    private static let varintBytes = 10

    init(window: ExportBinWindow, decodesKeys: Bool) {
        self.window = window
        self.decodesKeys = decodesKeys
    }

    /// The next top-level field, or nil at the end of export.bin (every byte read and checked). The first
    /// call checks the 16-byte magic.
    mutating func nextField() throws(ExportFileError) -> Field? {
        if !magicChecked {
            try checkMagic()
            magicChecked = true
        }
        guard try window.fill(atLeast: 1) else { return nil }
        let tag = try readTag()
        switch tag.field {
        case 1, 2:
            try require(.fixed64, tag)
            let value = try read(atLeast: 8) { (reader) throws(WireFormatError) in try reader.readFixed64() }
            if tag.field == 1 { header.startTimestamp = value } else { header.endTimestamp = value }
        case 3:
            try require(.lengthDelimited, tag)
            header.region = try wholeField(tag) { buffer, range in
                String(decoding: UnsafeRawBufferPointer(rebasing: buffer[range]), as: UTF8.self)
            }
        case 4, 5:
            try require(.varint, tag)
            let value = try read(atLeast: Self.varintBytes) { (reader) throws(WireFormatError) in try reader.readInt32() }
            if tag.field == 4 { header.batchNum = value } else { header.batchSize = value }
        case 6:
            try require(.lengthDelimited, tag)
            let info = try wholeField(tag) { (buffer, range) throws(WireFormatError) in
                try SignatureInfo.decode(buffer, range: range)
            }
            signatureInfoCount += 1
            if signatureInfoCount <= ExportHeader.maxSignatureInfos { header.signatureInfos.append(info) }
        case 7, 8:
            try require(.lengthDelimited, tag)
            let list: ExportKeyList = tag.field == 7 ? .keys : .revisedKeys
            if list == .keys { header.keyRecordCount += 1 } else { header.revisedKeyRecordCount += 1 }
            guard decodesKeys else {
                try skipLengthDelimited()
                return .keyRecord(nil, list)
            }
            let record = try wholeField(tag) { (buffer, range) throws(WireFormatError) in
                try ExportKeyRecord.decode(buffer, range: range)
            }
            return .keyRecord(record, list)
        default:
            try skip(tag)
        }
        return .other
    }

    /// Throws `tooManySignatureInfos` once the whole file has been walked and held too many.
    func checkSignatureInfoCount() throws(ExportFileError) {
        guard signatureInfoCount <= ExportHeader.maxSignatureInfos else {
            throw .export(.tooManySignatureInfos(count: signatureInfoCount, limit: ExportHeader.maxSignatureInfos))
        }
    }

    // MARK: Reads through the window

    /// Consumes the 16-byte magic, or throws `badHeader`.
    private func checkMagic() throws(ExportFileError) {
        let magic = ExportHeader.magic
        guard try window.fill(atLeast: magic.count),
              window.buffer[window.start..<(window.start + magic.count)].elementsEqual(magic)
        else { throw .export(.badHeader) }
        window.consume(magic.count)
    }

    /// Runs `body` on a reader over the window once it holds at least `count` bytes (or all export.bin has
    /// left), then consumes what the reader read. Offsets in its errors are made absolute (consuming never
    /// moves the window's storage, so `storageOffset` is still the one the reader started from).
    private func read<T>(
        atLeast count: Int, _ body: (inout ProtobufReader) throws(WireFormatError) -> T
    ) throws(ExportFileError) -> T {
        _ = try window.fill(atLeast: count)
        var reader = ProtobufReader(window.buffer, range: window.start..<window.end)
        do {
            let value = try body(&reader)
            window.consume(reader.position - window.start)
            return value
        } catch {
            throw .malformedExportBin(error.shifted(by: window.storageOffset))
        }
    }

    /// A tag, its offset made absolute.
    private func readTag() throws(ExportFileError) -> ProtobufReader.Tag {
        var tag = try read(atLeast: Self.varintBytes) { (reader) throws(WireFormatError) in try reader.readTag() }
        tag.offset += window.storageOffset
        return tag
    }

    /// A length prefix, checked against what export.bin declares it still holds (the reader over a window
    /// cannot know that).
    private func readLength() throws(ExportFileError) -> Int {
        let offset = window.position
        let length = try read(atLeast: Self.varintBytes) { (reader) throws(WireFormatError) in try reader.readVarint() }
        let available = window.remaining
        guard length <= UInt64(available) else {
            throw .malformedExportBin(.lengthOutOfBounds(offset: offset, length: length, available: available))
        }
        return Int(length)
    }

    /// Decodes a length-delimited field whole from the window; `body` gets the window's buffer and the
    /// payload's range in it.
    private func wholeField<T>(
        _ tag: ProtobufReader.Tag, _ body: (UnsafeRawBufferPointer, Range<Int>) throws(WireFormatError) -> T
    ) throws(ExportFileError) -> T {
        let length = try readLength()
        guard length <= ExportBinWindow.maxWholeField else {
            throw .fieldTooLarge(field: tag.field, offset: tag.offset, length: length, limit: ExportBinWindow.maxWholeField)
        }
        guard try window.fill(atLeast: length) else { throw .malformedExportBin(.truncated(offset: window.position)) }
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

    private func require(_ expected: WireType, _ tag: ProtobufReader.Tag) throws(ExportFileError) {
        do { try tag.require(expected, in: Self.message) } catch { throw .malformedExportBin(error) }
    }

    /// Moves past an unknown field: length-delimited ones through the window at any size, the rest by the
    /// reader's own rules — a group only when it fits in the window.
    private func skip(_ tag: ProtobufReader.Tag) throws(ExportFileError) {
        guard tag.wireType != .lengthDelimited else { return try skipLengthDelimited() }
        let isGroup = tag.wireType == .startGroup
        let windowFull = try window.fill(atLeast: isGroup ? ExportBinWindow.capacity : Self.varintBytes)
        do {
            try read(atLeast: 0) { (reader) throws(WireFormatError) in
                // The reader's offsets count from the window's storage, and so must the tag's.
                var local = tag
                local.offset -= window.storageOffset
                try reader.skip(local)
            }
        } catch .export(.malformed(_, .truncated)) where isGroup && windowFull {
            throw .groupTooLarge(field: tag.field, offset: tag.offset, limit: ExportBinWindow.maxWholeField)
        }
    }
}
