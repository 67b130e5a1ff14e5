/// Why a zip archive, or one entry of it, was refused. Each case names the entry when there is one.
public enum ZipError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No end-of-central-directory record in the last 64 KiB + 22 bytes: not a zip, or cut short.
    case notAZip
    case zip64Unsupported
    case multiDiskUnsupported
    case tooManyEntries(count: Int, limit: Int)
    /// The central directory, or an entry's header or data, lies outside the bytes it must fit in.
    case outOfRange(String)
    case corruptCentralDirectory(String)
    /// The local header disagrees with the central directory about the name or method.
    case localHeaderMismatch(name: String)
    case overlappingEntries(String, String)
    case duplicateName(String)
    case encrypted(name: String)
    case unsupportedMethod(name: String, method: UInt16)
    /// The declared uncompressed size exceeds what the caller allows.
    case entryTooLarge(name: String, declared: Int, limit: Int)
    /// Declared sizes imply more expansion than any real export shows: a zip bomb.
    case compressionRatioTooHigh(name: String, ratio: Int, limit: Int)
    /// The data inflates to more than its declared size: a zip bomb that lies about its size.
    case inflatesBeyondDeclaredSize(name: String, declared: Int)
    /// The data inflates to less than its declared size, or a stored entry's two sizes differ.
    case sizeMismatch(name: String, declared: Int, actual: Int)
    case corruptDeflateStream(name: String, reason: String)
    case crcMismatch(name: String, expected: UInt32, actual: UInt32)
    case missingEntry(String)

    public var description: String {
        switch self {
        case .notAZip: "not a zip archive (no end-of-central-directory record)"
        case .zip64Unsupported: "ZIP64 archives are not supported"
        case .multiDiskUnsupported: "multi-disk (split) archives are not supported"
        case .tooManyEntries(let count, let limit): "zip has \(count) entries, more than the \(limit) allowed"
        case .outOfRange(let what): "zip \(what) lies outside the archive"
        case .corruptCentralDirectory(let why): "zip central directory is corrupt: \(why)"
        case .localHeaderMismatch(let name): "zip entry \(name): local header disagrees with the central directory"
        case .overlappingEntries(let a, let b): "zip entries \(a) and \(b) overlap"
        case .duplicateName(let name): "zip holds two entries named \(name)"
        case .encrypted(let name): "zip entry \(name) is encrypted"
        case .unsupportedMethod(let name, let method):
            "zip entry \(name) uses compression method \(method); only stored (0) and deflate (8) are supported"
        case .entryTooLarge(let name, let declared, let limit):
            "zip entry \(name) declares \(declared) bytes, more than the \(limit) allowed"
        case .compressionRatioTooHigh(let name, let ratio, let limit):
            "zip entry \(name) claims a compression ratio of \(ratio):1, beyond the \(limit):1 allowed (zip bomb)"
        case .inflatesBeyondDeclaredSize(let name, let declared):
            "zip entry \(name) inflates beyond its declared \(declared) bytes (zip bomb)"
        case .sizeMismatch(let name, let declared, let actual):
            "zip entry \(name) declares \(declared) bytes but holds \(actual)"
        case .corruptDeflateStream(let name, let reason): "zip entry \(name) has corrupt deflate data: \(reason)"
        case .crcMismatch(let name, let expected, let actual):
            "zip entry \(name) fails its CRC-32 check (expected \(hex32(expected)), got \(hex32(actual)))"
        case .missingEntry(let name): "zip has no entry named \(name)"
        }
    }
}

private func hex32(_ value: UInt32) -> String {
    let digits = String(value, radix: 16)
    return String(repeating: "0", count: 8 - digits.count) + digits
}
