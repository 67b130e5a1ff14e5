/// A zip archive held in memory, read defensively: it is downloaded from the network and parsed
/// before anything about it can be trusted.
///
/// Parsing walks the central directory once, checks every entry's local header against it, and
/// refuses anything this project has no use for and an attacker might (encryption, ZIP64, multiple
/// disks, overlapping or out-of-range data, two entries with one name). Contents are extracted on
/// request, against a size limit the caller gives, with CRC-32 checked.
public struct ZipArchive: Sendable {
    public static let defaultMaxEntries = 64
    /// Real exports compress by well under 2:1 (key data is random); 100:1 is a bomb.
    public static let defaultMaxCompressionRatio = 100
    /// Below this size a high ratio is harmless (a few hundred zeros compress 100:1 legitimately).
    static let ratioCheckFloor = 1 << 16

    public let entries: [ZipEntry]
    private let bytes: [UInt8]

    // Record signatures and fixed sizes (APPNOTE.TXT 4.3).
    private static let endOfCentralDirectorySignature: UInt32 = 0x0605_4b50
    private static let zip64LocatorSignature: UInt32 = 0x0706_4b50
    private static let centralHeaderSignature: UInt32 = 0x0201_4b50
    private static let localHeaderSignature: UInt32 = 0x0403_4b50
    private static let endOfCentralDirectorySize = 22
    private static let zip64LocatorSize = 20
    private static let centralHeaderSize = 46
    private static let localHeaderSize = 30
    private static let maxCommentLength = 0xFFFF

    public init(_ bytes: [UInt8], maxEntries: Int = ZipArchive.defaultMaxEntries) throws(ZipError) {
        self.bytes = bytes
        entries = try bytes.withBytes { (raw) throws(ZipError) -> [ZipEntry] in
            try Self.parse(raw, maxEntries: maxEntries)
        }
    }

    /// True when `bytes` starts like a zip (a local header): lets a caller tell a zip from a bare export.bin.
    public static func looksLikeZip(_ bytes: [UInt8]) -> Bool {
        bytes.count >= 4 && bytes.withUnsafeBytes { $0.uint32LE(at: 0) == localHeaderSignature }
    }

    public func entry(named name: String) -> ZipEntry? {
        entries.first { $0.name == name }
    }

    /// The uncompressed contents of `name`, refused if it would exceed `maxSize` bytes, if its sizes
    /// imply a ratio above `maxCompressionRatio`, or if its CRC-32 does not match.
    public func contents(
        of name: String, maxSize: Int, maxCompressionRatio: Int = ZipArchive.defaultMaxCompressionRatio
    ) throws(ZipError) -> [UInt8] {
        guard let entry = entry(named: name) else { throw .missingEntry(name) }
        return try contents(of: entry, maxSize: maxSize, maxCompressionRatio: maxCompressionRatio)
    }

    public func contents(
        of entry: ZipEntry, maxSize: Int, maxCompressionRatio: Int = ZipArchive.defaultMaxCompressionRatio
    ) throws(ZipError) -> [UInt8] {
        guard entry.uncompressedSize <= maxSize else {
            throw .entryTooLarge(name: entry.name, declared: entry.uncompressedSize, limit: maxSize)
        }
        return try bytes.withBytes { (raw) throws(ZipError) -> [UInt8] in
            let data = UnsafeRawBufferPointer(rebasing: raw[entry.dataRange])
            let output: [UInt8]
            switch entry.method {
            case .stored:
                guard entry.compressedSize == entry.uncompressedSize else {
                    throw .sizeMismatch(name: entry.name, declared: entry.uncompressedSize, actual: entry.compressedSize)
                }
                output = Array(data)
            case .deflated:
                try Self.checkRatio(entry, limit: maxCompressionRatio)
                output = try Self.inflate(data, entry: entry)
            }
            let crc = output.withUnsafeBytes { ZipCRC32.checksum($0) }
            guard crc == entry.crc32 else { throw .crcMismatch(name: entry.name, expected: entry.crc32, actual: crc) }
            return output
        }
    }

    private static func checkRatio(_ entry: ZipEntry, limit: Int) throws(ZipError) {
        guard entry.uncompressedSize > ratioCheckFloor else { return }
        let ratio = entry.uncompressedSize / max(entry.compressedSize, 1)
        guard ratio <= limit else {
            throw .compressionRatioTooHigh(name: entry.name, ratio: ratio, limit: limit)
        }
    }

    private static func inflate(_ data: UnsafeRawBufferPointer, entry: ZipEntry) throws(ZipError) -> [UInt8] {
        do {
            return try RawInflate.inflate(data, expectedSize: entry.uncompressedSize)
        } catch {
            switch error {
            case .exceedsExpectedSize:
                throw .inflatesBeyondDeclaredSize(name: entry.name, declared: entry.uncompressedSize)
            case .shortOutput(let actual):
                throw .sizeMismatch(name: entry.name, declared: entry.uncompressedSize, actual: actual)
            case .corrupt(let reason):
                throw .corruptDeflateStream(name: entry.name, reason: reason)
            }
        }
    }

    // MARK: Parsing

    private static func parse(_ raw: UnsafeRawBufferPointer, maxEntries: Int) throws(ZipError) -> [ZipEntry] {
        let end = try findEndOfCentralDirectory(raw)
        if end >= zip64LocatorSize, raw.uint32LE(at: end - zip64LocatorSize) == zip64LocatorSignature {
            throw .zip64Unsupported
        }
        let disk = raw.uint16LE(at: end + 4)
        let directoryDisk = raw.uint16LE(at: end + 6)
        let entriesOnDisk = raw.uint16LE(at: end + 8)
        let entryCount = raw.uint16LE(at: end + 10)
        let directorySize = raw.uint32LE(at: end + 12)
        let directoryOffset = raw.uint32LE(at: end + 16)
        // All-ones in any field means "see the ZIP64 record".
        if [disk, directoryDisk, entriesOnDisk, entryCount].contains(0xFFFF)
            || directorySize == 0xFFFF_FFFF || directoryOffset == 0xFFFF_FFFF {
            throw .zip64Unsupported
        }
        guard disk == 0, directoryDisk == 0, entriesOnDisk == entryCount else { throw .multiDiskUnsupported }
        guard Int(entryCount) <= maxEntries else { throw .tooManyEntries(count: Int(entryCount), limit: maxEntries) }
        let directory = Int(directoryOffset)..<(Int(directoryOffset) + Int(directorySize))
        guard directory.upperBound <= end else { throw .outOfRange("central directory") }

        var entries: [ZipEntry] = []
        var names = Set<String>()
        var position = directory.lowerBound
        for _ in 0..<entryCount {
            let (entry, next) = try centralEntry(raw, at: position, directory: directory)
            guard names.insert(entry.name).inserted else { throw .duplicateName(entry.name) }
            entries.append(entry)
            position = next
        }
        guard position == directory.upperBound else {
            throw .corruptCentralDirectory("\(directory.upperBound - position) bytes after the last entry")
        }
        try checkNoOverlap(entries)
        return entries
    }

    /// The end record is the last 22 bytes plus a comment of up to 64 KiB, so the search is bounded;
    /// a candidate counts only if its comment length reaches exactly to the end of the file.
    private static func findEndOfCentralDirectory(_ raw: UnsafeRawBufferPointer) throws(ZipError) -> Int {
        guard raw.count >= endOfCentralDirectorySize else { throw .notAZip }
        let last = raw.count - endOfCentralDirectorySize
        let first = max(0, last - maxCommentLength)
        for offset in stride(from: last, through: first, by: -1)
        where raw.uint32LE(at: offset) == endOfCentralDirectorySignature {
            if offset + endOfCentralDirectorySize + Int(raw.uint16LE(at: offset + 20)) == raw.count { return offset }
        }
        throw .notAZip
    }

    private static func centralEntry(
        _ raw: UnsafeRawBufferPointer, at offset: Int, directory: Range<Int>
    ) throws(ZipError) -> (ZipEntry, next: Int) {
        guard offset + centralHeaderSize <= directory.upperBound else {
            throw .corruptCentralDirectory("entry header runs past the directory")
        }
        guard raw.uint32LE(at: offset) == centralHeaderSignature else {
            throw .corruptCentralDirectory("bad entry signature at byte \(offset)")
        }
        let flags = raw.uint16LE(at: offset + 8)
        let methodCode = raw.uint16LE(at: offset + 10)
        let crc = raw.uint32LE(at: offset + 16)
        let compressedSize = raw.uint32LE(at: offset + 20)
        let uncompressedSize = raw.uint32LE(at: offset + 24)
        let nameLength = Int(raw.uint16LE(at: offset + 28))
        let extraLength = Int(raw.uint16LE(at: offset + 30))
        let commentLength = Int(raw.uint16LE(at: offset + 32))
        let startDisk = raw.uint16LE(at: offset + 34)
        let localOffset = raw.uint32LE(at: offset + 42)
        let next = offset + centralHeaderSize + nameLength + extraLength + commentLength
        guard next <= directory.upperBound else { throw .corruptCentralDirectory("entry runs past the directory") }
        let nameRange = (offset + centralHeaderSize)..<(offset + centralHeaderSize + nameLength)
        let name = String(decoding: UnsafeRawBufferPointer(rebasing: raw[nameRange]), as: UTF8.self)

        // Bit 0: traditional encryption; bit 6: strong encryption; method 99: WinZip AES.
        if flags & 0x0001 != 0 || flags & 0x0040 != 0 || methodCode == 99 { throw .encrypted(name: name) }
        guard let method = ZipEntry.Method(rawValue: methodCode) else {
            throw .unsupportedMethod(name: name, method: methodCode)
        }
        if compressedSize == 0xFFFF_FFFF || uncompressedSize == 0xFFFF_FFFF || localOffset == 0xFFFF_FFFF
            || startDisk == 0xFFFF {
            throw .zip64Unsupported
        }
        guard startDisk == 0 else { throw .multiDiskUnsupported }

        let local = Int(localOffset)
        guard local + localHeaderSize <= directory.lowerBound else { throw .outOfRange("local header of \(name)") }
        guard raw.uint32LE(at: local) == localHeaderSignature else { throw .localHeaderMismatch(name: name) }
        let localFlags = raw.uint16LE(at: local + 6)
        let localMethod = raw.uint16LE(at: local + 8)
        let localNameLength = Int(raw.uint16LE(at: local + 26))
        let localExtraLength = Int(raw.uint16LE(at: local + 28))
        if localFlags & 0x0041 != 0 { throw .encrypted(name: name) }
        let localNameStart = local + localHeaderSize
        let dataStart = localNameStart + localNameLength + localExtraLength
        let dataEnd = dataStart + Int(compressedSize)
        guard dataEnd <= directory.lowerBound else { throw .outOfRange("data of \(name)") }
        guard localMethod == methodCode, localNameLength == nameLength,
              raw[localNameStart..<(localNameStart + nameLength)].elementsEqual(raw[nameRange])
        else { throw .localHeaderMismatch(name: name) }

        let entry = ZipEntry(
            name: name, method: method, crc32: crc, compressedSize: Int(compressedSize),
            uncompressedSize: Int(uncompressedSize), localHeaderOffset: local, dataRange: dataStart..<dataEnd)
        return (entry, next)
    }

    /// Each entry owns the bytes from its local header to the end of its data; no two may share any,
    /// or one stretch of compressed data could be counted (and inflated) many times over.
    private static func checkNoOverlap(_ entries: [ZipEntry]) throws(ZipError) {
        let spans = entries.sorted { $0.localHeaderOffset < $1.localHeaderOffset }
        for (a, b) in zip(spans, spans.dropFirst()) where a.dataRange.upperBound > b.localHeaderOffset {
            throw .overlappingEntries(a.name, b.name)
        }
    }
}
