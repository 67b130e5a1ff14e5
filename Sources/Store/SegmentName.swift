/// A segment file is named after the sequence number of its first record, ten decimal digits and
/// `.log` (`0000000042.log`), so sorting names sorts segments and an empty segment still says which
/// sequence number comes next. Anything else in the directory is not ours and is left alone.
enum SegmentName {
    private static let digits = 10
    private static let suffix = ".log"

    static func name(firstSequence: UInt32) -> String {
        let number = String(firstSequence)
        return String(repeating: "0", count: digits - number.count) + number + suffix
    }

    static func firstSequence(of name: String) -> UInt32? {
        guard name.utf8.count == digits + suffix.utf8.count, name.hasSuffix(suffix) else { return nil }
        let number = name.dropLast(suffix.count)
        guard number.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else { return nil }
        return UInt32(number)
    }
}
