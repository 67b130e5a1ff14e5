/// One file in a zip archive, as the central directory describes it, with its data located
/// through (and checked against) its local header.
public struct ZipEntry: Hashable, Sendable {
    public enum Method: UInt16, Sendable {
        case stored = 0
        case deflated = 8
    }

    public var name: String
    public var method: Method
    public var crc32: UInt32
    public var compressedSize: Int
    public var uncompressedSize: Int
    /// Where the local header starts and where the entry's (compressed) data lies in the archive.
    var localHeaderOffset: Int
    var dataRange: Range<Int>
}
