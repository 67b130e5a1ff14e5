/// The btsnoop capture format (as written by Android and read by btmon and Wireshark): an identifying
/// header, then one record per packet, every number big-endian.
public enum BtsnoopFormat {
    /// `btsnoop` and a NUL.
    public static let identification: [UInt8] = Array("btsnoop".utf8) + [0]
    public static let version: UInt32 = 1
    /// HCI UART (H4): each record's data starts with the H4 indicator byte, so one capture can hold
    /// commands, events and data without a per-record type field.
    public static let datalinkH4: UInt32 = 1002
    /// Microseconds from midnight, 1 January of year 0 (proleptic Gregorian), the btsnoop epoch, to the Unix epoch.
    public static let unixEpochOffsetMicroseconds: Int64 = 0x00DC_DDB3_0F2F_8000
    /// Original length, included length, flags, cumulative drops (4 bytes each), timestamp (8 bytes).
    public static let recordHeaderLength = 24

    /// The 16 bytes every file starts with.
    public static var fileHeader: [UInt8] {
        var bytes = identification
        bytes.appendBigEndian(version)
        bytes.appendBigEndian(datalinkH4)
        return bytes
    }
}

extension Array where Element == UInt8 {
    mutating func appendBigEndian(_ value: UInt32) {
        for shift in stride(from: 24, through: 0, by: -8) { append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }

    mutating func appendBigEndian(_ value: Int64) {
        let bits = UInt64(bitPattern: value)
        for shift in stride(from: 56, through: 0, by: -8) { append(UInt8(truncatingIfNeeded: bits >> UInt64(shift))) }
    }
}
