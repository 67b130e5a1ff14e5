/// Where an agent's services draw random numbers from. Production uses the kernel CSPRNG for everything
/// (TEKs, addresses, timing). Simulations use a seed so a run can be replayed; each service then gets
/// its own stream, derived from the seed and the service's name, so adding a draw in one service does
/// not shift every other.
public enum Randomness: Sendable {
    case system
    case seeded(UInt64)

    public func generator(for service: String) -> any RandomNumberGenerator {
        switch self {
        case .system:
            return SystemRandomNumberGenerator()
        case .seeded(let seed):
            var h: UInt64 = 0xCBF2_9CE4_8422_2325  // FNV-1a over the name, mixed into the seed
            for b in service.utf8 { h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01B3 }
            return SplitGenerator(seed: seed ^ h)
        }
    }
}

/// SplitMix64: small, fast, deterministic. Only ever used under `Randomness.seeded`.
public struct SplitGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
