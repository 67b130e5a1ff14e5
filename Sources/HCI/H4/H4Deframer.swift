/// Cuts an H4 byte stream into packets, whatever the reads look like: a packet split across many
/// reads, many packets in one read, or garbage in between.
///
/// Resynchronisation policy. H4 has no frame markers or checksums, so a deframer can only trust the
/// indicator byte and the length in each header:
/// - A byte that is not a known indicator (0x01–0x05) where a packet should start is dropped alone
///   and counted in `discardedByteCount`; the next byte is tried as an indicator. This recovers from
///   line noise before a packet and from a stream joined mid-packet, at the price of sometimes
///   reading a stray 0x04 as an event: the event decoder then rejects or skips that packet, and a
///   driver that keeps seeing errors should reset the transport instead of trusting the stream.
/// - Command, event and SCO lengths are one byte, so those packets are bounded by construction
///   (255 payload bytes). ACL and ISO packets longer than `maximumPayloadLength` are not buffered:
///   their bytes are skipped and counted (`oversizedPacketCount`, `discardedByteCount`), which keeps
///   the framing intact while holding memory to one packet of at most that size.
/// - `reset()` drops a partial packet, e.g. after a transport reopens.
///
/// A value type with no I/O: the transport feeds it what `read(2)` returned.
public struct H4Deframer: Sendable {
    public static let defaultMaximumPayloadLength = 4096

    /// ACL and ISO packets declaring more payload than this are skipped rather than buffered.
    /// Never below 255, so that no limit can break the one-byte-length packet types.
    public let maximumPayloadLength: Int

    /// Bytes dropped: unknown indicators and the whole of every oversized packet.
    public private(set) var discardedByteCount = 0
    /// ACL or ISO packets skipped for declaring more than `maximumPayloadLength`.
    public private(set) var oversizedPacketCount = 0
    /// Complete packets delivered so far.
    public private(set) var packetCount = 0

    private enum State: Sendable {
        /// Waiting for an indicator byte.
        case idle
        /// Collecting the fixed header that holds the length.
        case header(H4PacketType)
        /// Collecting `remaining` more payload bytes.
        case payload(H4PacketType, remaining: Int)
        /// Dropping `remaining` more bytes of an oversized packet.
        case skipping(remaining: Int)
    }

    private var state = State.idle
    /// The packet under construction, without its indicator; never longer than one header plus
    /// `maximumPayloadLength`.
    private var buffer: [UInt8] = []

    public init(maximumPayloadLength: Int = defaultMaximumPayloadLength) {
        self.maximumPayloadLength = max(255, maximumPayloadLength)
    }

    /// True between packets; false while part of a packet has arrived (a stall here suggests a lost byte).
    public var isBetweenPackets: Bool {
        if case .idle = state { return true }
        return false
    }

    /// Bytes of the current partial packet held in memory.
    public var bufferedByteCount: Int { buffer.count }

    /// Forgets any partial packet; counters are kept.
    public mutating func reset() {
        state = .idle
        buffer.removeAll(keepingCapacity: true)
    }

    /// Feeds the next bytes of the stream and returns the packets they complete, in order.
    public mutating func feed<Bytes: Collection>(_ chunk: Bytes) -> [H4Packet] where Bytes.Element == UInt8 {
        var packets: [H4Packet] = []
        feed(chunk) { packets.append($0) }
        return packets
    }

    /// Feeds the next bytes of the stream and hands each completed packet to `deliver`, in order.
    public mutating func feed<Bytes: Collection>(
        _ chunk: Bytes, deliver: (H4Packet) -> Void
    ) where Bytes.Element == UInt8 {
        var index = chunk.startIndex
        while index != chunk.endIndex {
            switch state {
            case .idle:
                let byte = chunk[index]
                chunk.formIndex(after: &index)
                if let type = H4PacketType(rawValue: byte) {
                    buffer.removeAll(keepingCapacity: true)
                    state = .header(type)
                } else {
                    discardedByteCount += 1
                }

            case .header(let type):
                buffer.append(chunk[index])
                chunk.formIndex(after: &index)
                guard buffer.count == type.headerLength else { continue }
                let length = type.payloadLength(header: buffer[...])
                if length > maximumPayloadLength {
                    oversizedPacketCount += 1
                    discardedByteCount += 1 + buffer.count
                    buffer.removeAll(keepingCapacity: true)
                    state = .skipping(remaining: length)
                } else if length == 0 {
                    finish(type, deliver: deliver)
                } else {
                    state = .payload(type, remaining: length)
                }

            case .payload(let type, let remaining):
                let end = chunk.index(index, offsetBy: remaining, limitedBy: chunk.endIndex) ?? chunk.endIndex
                let taken = chunk.distance(from: index, to: end)
                buffer.append(contentsOf: chunk[index..<end])
                index = end
                if taken == remaining {
                    finish(type, deliver: deliver)
                } else {
                    state = .payload(type, remaining: remaining - taken)
                }

            case .skipping(let remaining):
                let end = chunk.index(index, offsetBy: remaining, limitedBy: chunk.endIndex) ?? chunk.endIndex
                let skipped = chunk.distance(from: index, to: end)
                discardedByteCount += skipped
                index = end
                state = skipped == remaining ? .idle : .skipping(remaining: remaining - skipped)
            }
        }
    }

    private mutating func finish(_ type: H4PacketType, deliver: (H4Packet) -> Void) {
        let packet = H4Packet(type: type, bytes: buffer)
        buffer.removeAll(keepingCapacity: true)
        state = .idle
        packetCount += 1
        deliver(packet)
    }
}
