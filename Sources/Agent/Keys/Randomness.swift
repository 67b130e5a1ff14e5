import ENCore

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
            return SplitMix64(seed: seed ^ h)
        }
    }
}
