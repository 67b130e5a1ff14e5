/// Splits a byte stream into lines for the channels without an editor (piped stdin, the socket),
/// holding at most `maxLineBytes` of a line whatever arrives.
///
/// A line ends at LF; a CR before it is dropped. A line that grows past the limit is reported once, at
/// the moment it overflows (a client sending 10 MB without a newline is answered at once rather than
/// when it stops), and the rest of it, up to its LF, is discarded.
struct BoundedLineReader {
    package enum Event: Hashable, Sendable {
        case line(String)
        case tooLong
    }

    let maxLineBytes: Int
    private var pending: [UInt8] = []
    private var discarding = false

    init(maxLineBytes: Int = 4096) {
        self.maxLineBytes = maxLineBytes
    }

    /// The events completed by `bytes`, in order.
    mutating func feed(_ bytes: some Sequence<UInt8>) -> [Event] {
        var events: [Event] = []
        for byte in bytes {
            if byte == 0x0A {
                if discarding {
                    discarding = false
                } else {
                    events.append(.line(takeLine()))
                }
            } else if !discarding {
                if pending.count == maxLineBytes {
                    pending.removeAll(keepingCapacity: true)
                    discarding = true
                    events.append(.tooLong)
                } else {
                    pending.append(byte)
                }
            }
        }
        return events
    }

    /// At end of input: the last line if it had no LF.
    package mutating func finish() -> Event? {
        defer { discarding = false }
        guard !discarding, !pending.isEmpty else { return nil }
        return .line(takeLine())
    }

    private mutating func takeLine() -> String {
        if pending.last == 0x0D { pending.removeLast() }
        defer { pending.removeAll(keepingCapacity: true) }
        return String(decoding: pending, as: UTF8.self)
    }
}
