/// The fixed-layout zip records the export writer emits (APPNOTE.TXT 4.3.7, 4.3.12, 4.3.16): version 2.0,
/// no flags, no extra fields, no comments, no ZIP64 — the plainest archive every reader understands.
enum ZipRecordLayout {
    static let localHeaderSignature: UInt32 = 0x0403_4b50
    static let centralHeaderSignature: UInt32 = 0x0201_4b50
    static let endOfCentralDirectorySignature: UInt32 = 0x0605_4b50
    static let localHeaderSize = 30
    /// "2.0": deflate and folders; the least a reader must support for these archives.
    static let version: UInt16 = 20
    /// Sizes and offsets must stay below this: all-ones means "see the ZIP64 record". On a 32-bit board Int
    /// ends first, at 2 GiB (`Int(UInt32.max)` would trap there).
    static let limit = Int(clamping: UInt32.max - 1)

    static func localHeader(_ entry: WrittenZipEntry) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(localHeaderSize + entry.name.count)
        out.putLE(localHeaderSignature)
        out.putLE(version)
        out.putLE(UInt16(0))
        out.putLE(entry.method.rawValue)
        out.putLE(entry.timestamp.time)
        out.putLE(entry.timestamp.date)
        out.putLE(entry.crc32)
        out.putLE(UInt32(entry.compressedSize))
        out.putLE(UInt32(entry.uncompressedSize))
        out.putLE(UInt16(entry.name.count))
        out.putLE(UInt16(0))
        out += entry.name
        return out
    }

    static func centralHeader(_ entry: WrittenZipEntry) -> [UInt8] {
        var out: [UInt8] = []
        out.putLE(centralHeaderSignature)
        out.putLE(version)  // made by: MS-DOS, 2.0 — no Unix permissions to convey
        out.putLE(version)
        out.putLE(UInt16(0))
        out.putLE(entry.method.rawValue)
        out.putLE(entry.timestamp.time)
        out.putLE(entry.timestamp.date)
        out.putLE(entry.crc32)
        out.putLE(UInt32(entry.compressedSize))
        out.putLE(UInt32(entry.uncompressedSize))
        out.putLE(UInt16(entry.name.count))
        out.putLE(UInt16(0))  // extra
        out.putLE(UInt16(0))  // comment
        out.putLE(UInt16(0))  // disk
        out.putLE(UInt16(0))  // internal attributes
        out.putLE(UInt32(0))  // external attributes
        out.putLE(UInt32(entry.localHeaderOffset))
        out += entry.name
        return out
    }

    static func endOfCentralDirectory(entries: Int, directoryOffset: Int, directorySize: Int) -> [UInt8] {
        var out: [UInt8] = []
        out.putLE(endOfCentralDirectorySignature)
        out.putLE(UInt16(0))
        out.putLE(UInt16(0))
        out.putLE(UInt16(entries))
        out.putLE(UInt16(entries))
        out.putLE(UInt32(directorySize))
        out.putLE(UInt32(directoryOffset))
        out.putLE(UInt16(0))
        return out
    }
}

/// What the central directory needs to know about an entry once it is written.
struct WrittenZipEntry {
    var name: [UInt8]
    var method: ZipEntry.Method
    var timestamp: DOSTimestamp
    var crc32: UInt32 = 0
    var compressedSize = 0
    var uncompressedSize = 0
    var localHeaderOffset: Int
}

extension Array where Element == UInt8 {
    mutating func putLE(_ value: UInt16) {
        append(UInt8(truncatingIfNeeded: value))
        append(UInt8(truncatingIfNeeded: value >> 8))
    }

    mutating func putLE(_ value: UInt32) {
        putLE(UInt16(truncatingIfNeeded: value))
        putLE(UInt16(truncatingIfNeeded: value >> 16))
    }
}
