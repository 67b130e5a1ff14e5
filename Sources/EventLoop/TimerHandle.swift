/// Names one scheduled timer so that it can be cancelled.
///
/// Handles are never reused within a loop (they carry the timer's sequence number), so cancelling
/// a handle whose timer already fired or was cancelled is a harmless no-op rather than a hazard.
public struct TimerHandle: Hashable, Sendable {
    let sequence: UInt64
    init(sequence: UInt64) { self.sequence = sequence }
}
