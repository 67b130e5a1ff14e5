import ENCore
/// The virtual radio's source of chance: advertising delays, phases and signal noise.
///
/// SplitMix64, seeded by the caller, so a simulation with the same seed and the same inputs hears
/// exactly the same RSSI values at exactly the same instants on every run and every machine.
struct RadioRandom: RandomNumberGenerator {
    private var source: SplitMix64

    init(seed: UInt64) { source = SplitMix64(seed: seed) }

    mutating func next() -> UInt64 { source.next() }

    /// A standard-normal-looking sample: the sum of four uniforms, centred and scaled to unit variance.
    ///
    /// Bounded to ±3.46 rather than truly Gaussian, which suits signal noise (no absurd outliers) and
    /// needs no logarithms or trigonometry.
    mutating func roughlyNormal() -> Double {
        var sum = 0.0
        for _ in 0..<4 { sum += Double.random(in: 0..<1, using: &self) }
        // Four uniforms have mean 2 and variance 4/12 = 1/3.
        return (sum - 2) * 1.7320508075688772
    }

    /// A uniformly random duration in `0..<upperBound` (zero when the bound is not positive).
    mutating func duration(below upperBound: Duration) -> Duration {
        let nanoseconds = upperBound.wholeNanoseconds
        guard nanoseconds > 0 else { return .zero }
        return .nanoseconds(Int64.random(in: 0..<nanoseconds, using: &self))
    }
}

extension Duration {
    /// Whole nanoseconds, clamped to `Int64`: the virtual radio's arithmetic unit.
    var wholeNanoseconds: Int64 {
        Int64(clamping: attoseconds / 1_000_000_000)
    }
}
