/// What opening a ring log found. A store opens whatever it finds; this says what it cost.
public struct RecoveryReport: Hashable, Sendable, CustomStringConvertible {
    public var segments = 0
    /// Records that verified.
    public var records = 0
    /// Records lost to damage before the newest valid record (sequence numbers that are missing).
    public var damagedRecords = 0
    /// Unreadable bytes left in place between valid records (never rewritten: SD-card wear).
    public var skippedBytes = 0
    /// Bytes cut from the end of the newest segment: a write the power cut tore, never acknowledged.
    public var truncatedBytes = 0

    public init() {}

    public var isClean: Bool { damagedRecords == 0 && skippedBytes == 0 && truncatedBytes == 0 }

    public var description: String {
        "\(segments) segments, \(records) records, \(damagedRecords) damaged records skipped "
            + "(\(skippedBytes) bytes), \(truncatedBytes) bytes of torn tail truncated"
    }
}
