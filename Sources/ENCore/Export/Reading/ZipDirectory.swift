/// The entries of a zip archive read from an `ExportByteSource` without loading the archive: the end
/// record from the last 64 KiB + 22 bytes, the central directory (at most 1 MiB), and each entry's local
/// header. A downloaded zip is parsed before anything about it can be trusted, so it refuses whatever this
/// project has no use for and an attacker might: ZIP64, multiple disks, encryption, methods other than
/// stored and deflate, local headers disagreeing with the directory, data outside the archive, two
/// entries sharing a name or a byte.
enum ZipDirectory {
    /// Exports hold two entries (three for the Dutch app's content.sig); 64 is plenty.
    static let defaultMaxEntries = 64
    /// 64 entries of ordinary names take a few KiB; a bigger directory is not an export's.
    static let maxDirectorySize = 1 << 20

    private static let endSignature: UInt32 = 0x0605_4b50
    private static let zip64LocatorSignature: UInt32 = 0x0706_4b50
    private static let centralSignature: UInt32 = 0x0201_4b50
    private static let localSignature: UInt32 = 0x0403_4b50
    private static let endSize = 22
    private static let zip64LocatorSize = 20
    private static let centralSize = 46
    private static let localSize = 30
    private static let maxCommentLength = 0xFFFF

    static func entries(
        of source: some ExportByteSource, maxEntries: Int = ZipDirectory.defaultMaxEntries
    ) throws(ExportFileError) -> [ZipEntry] {
        let size = source.byteCount
        guard size >= endSize else { throw .zip(.notAZip) }
        let tailStart = max(0, size - endSize - maxCommentLength)
        let tail = try source.readExactly(at: tailStart, count: size - tailStart)
        let end = try tail.withBytes { (raw) throws(ExportFileError) -> Int in
            // A candidate counts only if its comment length reaches exactly to the end of the file.
            for offset in stride(from: raw.count - endSize, through: 0, by: -1)
            where raw.uint32LE(at: offset) == endSignature {
                if offset + endSize + Int(raw.uint16LE(at: offset + 20)) == raw.count { return tailStart + offset }
            }
            throw .zip(.notAZip)
        }
        if end >= zip64LocatorSize {
            let locator = try source.readExactly(at: end - zip64LocatorSize, count: 4)
            if locator.withUnsafeBytes({ $0.uint32LE(at: 0) }) == zip64LocatorSignature { throw .zip(.zip64Unsupported) }
        }
        let record = Array(tail[(end - tailStart)..<(end - tailStart + endSize)])
        let (disk, directoryDisk, entriesOnDisk, entryCount, directorySize, directoryOffset) = record.withUnsafeBytes {
            ($0.uint16LE(at: 4), $0.uint16LE(at: 6), $0.uint16LE(at: 8), $0.uint16LE(at: 10),
             $0.uint32LE(at: 12), $0.uint32LE(at: 16))
        }
        // All-ones in any field means "see the ZIP64 record".
        if [disk, directoryDisk, entriesOnDisk, entryCount].contains(0xFFFF)
            || directorySize == 0xFFFF_FFFF || directoryOffset == 0xFFFF_FFFF {
            throw .zip(.zip64Unsupported)
        }
        guard disk == 0, directoryDisk == 0, entriesOnDisk == entryCount else { throw .zip(.multiDiskUnsupported) }
        guard Int(entryCount) <= maxEntries else {
            throw .zip(.tooManyEntries(count: Int(entryCount), limit: maxEntries))
        }
        guard let directoryStart = bounded(directoryOffset, plus: directorySize, within: end) else {
            throw .zip(.outOfRange("central directory"))
        }
        let directory = directoryStart..<(directoryStart + Int(directorySize))
        guard directory.count <= maxDirectorySize else {
            throw .zip(.corruptCentralDirectory("\(directory.count) bytes, more than the \(maxDirectorySize) allowed"))
        }
        let bytes = try source.readExactly(at: directory.lowerBound, count: directory.count)

        var entries: [ZipEntry] = []
        var names = Set<String>()
        var position = 0
        for _ in 0..<entryCount {
            let (entry, next) = try centralEntry(bytes, at: position, directory: directory, source: source)
            guard names.insert(entry.name).inserted else { throw .zip(.duplicateName(entry.name)) }
            entries.append(entry)
            position = next
        }
        guard position == bytes.count else {
            throw .zip(.corruptCentralDirectory("\(bytes.count - position) bytes after the last entry"))
        }
        let spans = entries.sorted { $0.localHeaderOffset < $1.localHeaderOffset }
        for (a, b) in zip(spans, spans.dropFirst()) where a.dataRange.upperBound > b.localHeaderOffset {
            throw .zip(.overlappingEntries(a.name, b.name))
        }
        return entries
    }

    /// One central-directory record at `offset` of `bytes` (the directory), checked against its local header.
    private static func centralEntry(
        _ bytes: [UInt8], at offset: Int, directory: Range<Int>, source: some ExportByteSource
    ) throws(ExportFileError) -> (ZipEntry, next: Int) {
        guard offset + centralSize <= bytes.count else {
            throw .zip(.corruptCentralDirectory("entry header runs past the directory"))
        }
        let fields = bytes.withUnsafeBytes { raw in
            (signature: raw.uint32LE(at: offset), flags: raw.uint16LE(at: offset + 8),
             method: raw.uint16LE(at: offset + 10), crc: raw.uint32LE(at: offset + 16),
             compressedSize: raw.uint32LE(at: offset + 20), uncompressedSize: raw.uint32LE(at: offset + 24),
             nameLength: Int(raw.uint16LE(at: offset + 28)), extraLength: Int(raw.uint16LE(at: offset + 30)),
             commentLength: Int(raw.uint16LE(at: offset + 32)), startDisk: raw.uint16LE(at: offset + 34),
             localOffset: raw.uint32LE(at: offset + 42))
        }
        guard fields.signature == centralSignature else {
            throw .zip(.corruptCentralDirectory("bad entry signature at byte \(directory.lowerBound + offset)"))
        }
        let next = offset + centralSize + fields.nameLength + fields.extraLength + fields.commentLength
        guard next <= bytes.count else { throw .zip(.corruptCentralDirectory("entry runs past the directory")) }
        let nameBytes = bytes[(offset + centralSize)..<(offset + centralSize + fields.nameLength)]
        // Control characters become '?': a name goes into error messages and log lines, which are one line
        // each, and "export.bin" and "export.sig" have none.
        let name = String(String.UnicodeScalarView(String(decoding: nameBytes, as: UTF8.self).unicodeScalars.map {
            $0.value < 0x20 || $0.value == 0x7F ? "?" : $0
        }))

        // Bit 0: traditional encryption; bit 6: strong encryption; method 99: WinZip AES.
        if fields.flags & 0x0001 != 0 || fields.flags & 0x0040 != 0 || fields.method == 99 {
            throw .zip(.encrypted(name: name))
        }
        guard let method = ZipEntry.Method(rawValue: fields.method) else {
            throw .zip(.unsupportedMethod(name: name, method: fields.method))
        }
        if fields.compressedSize == 0xFFFF_FFFF || fields.uncompressedSize == 0xFFFF_FFFF
            || fields.localOffset == 0xFFFF_FFFF || fields.startDisk == 0xFFFF {
            throw .zip(.zip64Unsupported)
        }
        guard fields.startDisk == 0 else { throw .zip(.multiDiskUnsupported) }

        guard let local = bounded(fields.localOffset, plus: UInt32(localSize), within: directory.lowerBound) else {
            throw .zip(.outOfRange("local header of \(name)"))
        }
        let header = try source.readExactly(at: local, count: localSize)
        let localFields = header.withUnsafeBytes { raw in
            (signature: raw.uint32LE(at: 0), flags: raw.uint16LE(at: 6), method: raw.uint16LE(at: 8),
             nameLength: Int(raw.uint16LE(at: 26)), extraLength: Int(raw.uint16LE(at: 28)))
        }
        guard localFields.signature == localSignature else { throw .zip(.localHeaderMismatch(name: name)) }
        if localFields.flags & 0x0041 != 0 { throw .zip(.encrypted(name: name)) }
        let dataStart = local + localSize + localFields.nameLength + localFields.extraLength
        guard dataStart <= directory.lowerBound,
              let compressedSize = bounded(fields.compressedSize, plus: 0, within: directory.lowerBound - dataStart)
        else { throw .zip(.outOfRange("data of \(name)")) }
        let dataEnd = dataStart + compressedSize
        guard localFields.method == fields.method, localFields.nameLength == fields.nameLength,
              try source.readExactly(at: local + localSize, count: fields.nameLength).elementsEqual(nameBytes)
        else { throw .zip(.localHeaderMismatch(name: name)) }

        let entry = ZipEntry(
            name: name, method: method, crc32: fields.crc, compressedSize: compressedSize,
            // Past Int.max only on a 32-bit board (2 GiB), where it is beyond any limit a reader passes as an
            // Int and refused as too large, with Int.max as the declared size in the message.
            uncompressedSize: Int(clamping: fields.uncompressedSize), localHeaderOffset: local,
            dataRange: dataStart..<dataEnd)
        return (entry, next)
    }

    /// `value` as an Int when `value + extra` stays within `limit` (an offset or size inside the archive),
    /// else nil. Compared as 64-bit numbers before converting: on a 32-bit board Int ends at 2 GiB and a
    /// crafted 32-bit field would trap in `Int(_:)`, or in the sum, instead of being refused.
    private static func bounded(_ value: UInt32, plus extra: UInt32, within limit: Int) -> Int? {
        UInt64(value) + UInt64(extra) <= UInt64(max(limit, 0)) ? Int(value) : nil
    }
}
