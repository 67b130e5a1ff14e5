/// One captured packet as a btsnoop record: the pure encoder behind `BtsnoopFile`.
public struct BtsnoopRecord: Hashable, Sendable {
    public var packet: H4Packet
    public var direction: BtsnoopDirection
    /// Microseconds since the Unix epoch, when the packet crossed the transport.
    public var unixMicroseconds: Int64

    public init(packet: H4Packet, direction: BtsnoopDirection, unixMicroseconds: Int64) {
        self.packet = packet
        self.direction = direction
        self.unixMicroseconds = unixMicroseconds
    }

    /// Bit 0 set for packets the host received; bit 1 set for commands and events (as opposed to data).
    public var flags: UInt32 {
        var flags: UInt32 = direction == .received ? 0b01 : 0b00
        if packet.type == .command || packet.type == .event { flags |= 0b10 }
        return flags
    }

    /// Microseconds since the btsnoop epoch; clamped rather than overflowing for absurd clock readings.
    public var timestamp: Int64 {
        let (sum, overflow) = unixMicroseconds.addingReportingOverflow(BtsnoopFormat.unixEpochOffsetMicroseconds)
        return overflow ? Int64.max : sum
    }

    /// The record header followed by the H4 packet, indicator included.
    public func encoded() -> [UInt8] {
        let data = packet.encoded()
        var bytes: [UInt8] = []
        bytes.reserveCapacity(BtsnoopFormat.recordHeaderLength + data.count)
        let length = UInt32(truncatingIfNeeded: data.count)
        bytes.appendBigEndian(length)  // original length
        bytes.appendBigEndian(length)  // included length: enbeacon never truncates
        bytes.appendBigEndian(flags)
        bytes.appendBigEndian(UInt32(0))  // cumulative drops: a failed write is reported, not recorded
        bytes.appendBigEndian(timestamp)
        bytes += data
        return bytes
    }
}
